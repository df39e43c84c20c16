/** French. */
import type { Catalogue } from "./en.ts";

export const fr: Catalogue = {
  "doc.footer": "Salle d’attente par Tollgate",
  "doc.how": "Comment ça marche",
  "doc.language": "Langue",
  "doc.languageNow": "Langue : {name}",
  "page.title": "Vous êtes dans la file",
  "page.message":
    "Merci de votre patience. Nous vous laisserons entrer dès qu’il y aura de la place.",
  "page.turnTitle": "✅ C’est votre tour — {title}",
  "page.previewTitle": "Aperçu — {title}",
  "page.moveTitle": "Transférer votre place ici ? — {title}",
  "page.movedTitle": "Votre place a été transférée — {title}",
  "page.endedTitle": "Votre place a pris fin — {title}",
  "live.expired":
    "Votre tour est passé : la place vous a été réservée, mais vous n’êtes pas entré à temps.",
  "live.ended":
    "Votre place dans la file a pris fin : vous êtes parti, elle a été libérée faute de signe de vie, ou votre tour est passé.",
  "live.full":
    "La salle d’attente est pleine pour le moment. Cette page réessaie d’elle-même dans un instant.",
  "live.closed": "Cette salle d’attente n’est pas disponible.",
  "live.cookies":
    "Cette page ne peut pas garder votre place ici, car le navigateur ne conserve pas le cookie de la salle d’attente dans ce cadre. Ouvrez la salle d’attente dans sa propre fenêtre pour attendre.",
  "live.hold":
    "C’est votre tour ! Votre place est réservée pendant {time} : appuyez sur « Entrer maintenant ».",
  "live.admitted": "C’est votre tour ! Nous vous faisons entrer…",
  "live.prequeue":
    "Vous êtes dans la pré-file. Cette page vérifie pour vous et avance d’elle-même.",
  "live.lottery":
    "Vous participez au tirage au sort. Cette page vérifie pour vous et avance d’elle-même.",
  "live.position":
    "Vous êtes numéro {position} dans la file. Cette page vérifie pour vous et avance d’elle-même.",
  "live.positionOf":
    "Vous êtes numéro {position} sur {waiting} dans la file. Cette page vérifie pour vous et avance d’elle-même.",
  "live.positionAbout":
    "Vous êtes environ numéro {position} dans la file. Cette page vérifie pour vous et avance d’elle-même.",
  "wait.joinAgain": "Reprendre une place dans la file",
  "wait.ownWindow": "Ouvrir la salle d’attente dans sa propre fenêtre",
  "wait.enterNow": "Entrer maintenant",
  "wait.continue": "Continuer",
  "wait.heldFor": "Votre place est réservée pendant {countdown}.",
  "wait.notifyMe": "Me prévenir",
  "wait.notifyOn": "Nous vous préviendrons quand ce sera votre tour.",
  "wait.notifyBlocked":
    "Les notifications sont bloquées pour ce site : nous ne pouvons pas vous prévenir. Gardez cette page ouverte : elle avance d’elle-même.",
  "wait.arrivalWas": "Votre numéro d’arrivée dans la pré-file était {arrival}.",
  "wait.checkDraw": "Vérifier le tirage d’ouverture",
  "wait.howYouGetIn": "Comment vous entrez",
  "wait.prequeueWords":
    "À l’ouverture, chaque personne de la pré-file reçoit une place tirée au sort, devant toutes celles qui arrivent plus tard. Le moment où vous avez rejoint la pré-file ne change rien.",
  "wait.lotteryWords":
    "Chaque fois qu’une place se libère, un tirage au sort désigne qui entre parmi toutes les personnes qui attendent à ce moment. Il n’y a pas de rang dans la file : arriver plus tôt ou plus tard ne change rien.",
  "wait.arrivalNumber":
    "Votre numéro d’arrivée : {arrival} (gardez-le pour retrouver votre place dans le tirage publié)",
  "wait.commitment":
    "Le secret du tirage a été fixé avant que quiconque ne rejoigne la file ; son empreinte est {fingerprint}.",
  "wait.howToCheck": "Comment vérifier le tirage",
  "wait.openingProgress": "En attente du tirage d’ouverture",
  "wait.prequeueEta": "Attente prévue après l’ouverture, pour une place tirée au sort : {wait}",
  "wait.odds": "{waiting} en attente · votre chance au prochain tirage : {chance}",
  "wait.drawProgress": "En attente du tirage",
  "wait.lotteryEta":
    "Au rythme actuel, la moitié des personnes qui attendent entrent en moins de {half}, neuf sur dix en moins de {most}.",
  "wait.placeLabel": "Votre place dans la file",
  "wait.place": "N° {position}",
  "wait.placeOf": "N° {position} sur {waiting}",
  "wait.placeAbout": "Environ N° {position}",
  "wait.codeOffer": "Vous avez un code prioritaire ?",
  "wait.codeLabel": "Code prioritaire",
  "wait.codeUse": "Utiliser le code",
  "wait.inLane": "File prioritaire : {lane}",
  "wait.lineProgress": "Progression dans la file",
  "wait.eta": "Attente estimée : {wait}",
  "time.unknown": "inconnue",
  "time.underMinute": "moins d’une minute",
  "time.about": "environ {duration}",
  "time.overDay": "plus d’un jour",
  "time.under": "moins de {value}",
  "notify.title": "C’est votre tour",
  "resume.offer": "Continuer sur un autre appareil",
  "resume.offerHint":
    "Ouvrez cette salle d’attente sur votre téléphone ou un autre ordinateur et gardez votre place.",
  "resume.showCode": "Afficher un code",
  "resume.codeLabel": "Votre code",
  "resume.codeHint":
    "Sur l’autre appareil, scannez le QR code, ouvrez le lien ou saisissez le code sous « {offer} » sur la page de cette salle d’attente. Le code ne sert qu’une fois ; votre place passe alors sur cet appareil.",
  "resume.link": "Lien : {link}",
  "resume.copyLink": "Copier le lien",
  "resume.copied": "Copié",
  "resume.qrLabel": "QR code qui ouvre votre place sur un autre appareil",
  "resume.moved":
    "Votre place est passée sur un autre appareil. Pour la récupérer, saisissez un code affiché sur celui-ci.",
  "resume.haveCode": "Vous avez un code d’un autre appareil ?",
  "resume.enterCode": "Saisir le code",
  "resume.takePlace": "Continuer ici",
  "resume.confirmMove":
    "Transférer votre place dans la file sur cet appareil ? L’autre appareil la perdra.",
  "resume.badCode":
    "Ce code ne fonctionne pas : il est mal saisi, a déjà servi ou sa place a pris fin.",
  "resume.tooMany": "Trop de codes erronés. Attendez quelques minutes et réessayez.",
  "resume.mailOffer": "M’envoyer un e-mail quand ce sera mon tour",
  "resume.mailLabel": "Votre adresse e-mail",
  "resume.mailSave": "M’avertir par e-mail",
  "resume.mailSaved":
    "Nous vous enverrons un e-mail quand ce sera votre tour. L’adresse est supprimée dès l’envoi de l’e-mail ou à la fin de votre place.",
  "resume.mailBad": "Cela ne ressemble pas à une adresse e-mail.",
  "resume.mailError":
    "L’adresse n’a pas pu être enregistrée pour le moment. Réessayez dans un instant.",
  "resume.mailCancel": "Ne pas m’envoyer d’e-mail",
  "resume.holdWarning":
    "Votre place réservée expire bientôt. Besoin de plus de temps ? Appuyez sur « {button} ».",
  "resume.moreTime": "J’ai besoin de plus de temps",
  "resume.moreTimeAdded": "Temps supplémentaire ajouté.",
  "resume.noMoreTime": "Impossible d’ajouter plus de temps.",
  "mail.subjectTurn": "C’est votre tour : {title}",
  "mail.subjectNear": "Bientôt votre tour : {title}",
  "mail.leadTurn": "C’est votre tour : vous pouvez entrer maintenant.",
  "mail.leadNear": "Vous faites partie des {count} premiers de la file.",
  "mail.linkIntro":
    "Ouvrez ce lien sur cet appareil pour continuer dans la salle d’attente (votre place passe sur cet appareil) :",
  "mail.code": "Ou saisissez ce code sur la page de la salle d’attente : {code}",
  "mail.ignore": "Si vous n’avez pas demandé cet e-mail, vous pouvez l’ignorer.",
  "check.title": "Un instant — {title}",
  "check.noscript":
    "Avant de rejoindre la file, cette page vérifie que vous êtes une personne et non un script. La vérification a besoin de JavaScript : activez-le et rechargez cette page.",
  "check.checking": "Vérification que vous êtes une personne et non un script…",
  "check.progress":
    "Vérification que vous êtes une personne et non un script… environ {percent} effectués.",
  "check.done": "Vérification terminée. Entrée dans la file…",
  "check.doneResume": "Vérification terminée. Transfert de votre place ici…",
  "check.again": "Encore une vérification…",
  "check.failed":
    "La vérification n’a pas fonctionné ({reason}). Rechargez la page pour réessayer.",
  "check.reload": "Recharger",
  "check.progressLabel": "Progression de la vérification",
  "check.errCookies":
    "le navigateur ne conserve pas le cookie de la salle d’attente dans ce cadre ; ouvrez la salle d’attente dans sa propre fenêtre",
  "check.errWidget": "la vérification Turnstile n’a pas pu être chargée",
  "check.errStatus": "la salle d’attente a répondu {status}",
  "notice.badRequest": "Requête incorrecte",
  "notice.badQueueLink": "Le nom de file dans ce lien n’est pas valide.",
  "notice.badQueueForm": "Le nom de file dans ce formulaire n’est pas valide.",
  "notice.denied": "Accès refusé",
  "notice.deniedText": "Vous ne pouvez pas rejoindre cette salle d’attente.",
  "notice.badLink": "Ce lien pose un problème",
  "notice.badLinkText":
    "Ce lien vers la salle d’attente ne peut pas être utilisé. Retournez sur le site et suivez à nouveau son lien.",
  "notice.moment": "Veuillez patienter un instant",
  "notice.momentText":
    "La salle d’attente n’a pas pu répondre pour le moment. Cette page réessaie d’elle-même dans {seconds}.",
  "notice.geo": "Non disponible dans votre pays",
  "notice.geoText": "Cette salle d’attente n’est pas disponible dans votre pays.",
  "notice.code": "Ce code prioritaire ne peut pas être utilisé",
  "notice.codeText":
    "Il n’est pas valable pour cette file, a expiré ou a déjà été utilisé. Vous pouvez tout de même rejoindre la file sans lui.",
  "notice.notFound": "Introuvable",
  "notice.visitEnded": "Votre visite est terminée",
  "notice.visitEndedText":
    "Merci de votre visite : le site y a mis fin. Pour entrer de nouveau, rejoignez la file (en dernière position).",
  "notice.notFoundText": "Il n’y a pas de salle d’attente ici.",
  "notice.notOpen": "Pas encore ouvert",
  "notice.notOpenText":
    "Cette salle d’attente n’est pas encore ouverte. Cette page revérifie d’elle-même chaque minute.",
  "notice.rate": "Trop de nouvelles places depuis votre réseau",
  "notice.rateText":
    "Beaucoup de personnes de votre réseau ont rejoint cette salle d’attente au cours de la dernière minute. Cette page réessaie d’elle-même dans {seconds}.",
  "notice.closed": "Fermé pour le moment",
  "notice.closedText":
    "Cette salle d’attente est fermée pour le moment. Revenez plus tard ; cette page vérifie à nouveau d’elle-même.",
  "notice.full": "La salle d’attente est pleine",
  "notice.fullText":
    "Trop de personnes attendent en ce moment. Cette page réessaie d’elle-même dans {seconds}.",
  "enqueue.unavailable": "Indisponible pour le moment",
  "enqueue.unavailableText": "Cette salle d’attente ne peut pas vérifier ses liens pour le moment.",
  "enqueue.useLink": "Veuillez utiliser le lien du site",
  "enqueue.required":
    "On rejoint cette salle d’attente par un lien personnel du site qui vous a envoyé ici. Retournez sur le site et suivez son lien vers la file.",
  "enqueue.invalid":
    "Le lien qui vous a amené ici n’est pas valide (il a peut-être expiré). Retournez sur le site et suivez à nouveau son lien vers la file.",
  "how.title": "Comment fonctionne cette salle d’attente",
  "how.intro":
    "Quand il arrive plus de monde que le site ne peut en servir à la fois, vous recevez une place dans la file au lieu d’une page d’erreur. Le site fait entrer les gens à un rythme régulier.",
  "how.keepOpen":
    "Gardez la page d’attente ouverte : elle se signale d’elle-même et avance quand c’est votre tour. La fermer longtemps vous fait perdre votre place.",
  "how.reload":
    "Recharger ou rouvrir la page conserve votre place (un cookie s’en souvient) ; une nouvelle place vous mettrait seulement au bout de la file.",
  "how.random":
    "Certaines ventes tirent les gens au sort au lieu du premier arrivé, premier servi ; la page indique lequel s’applique.",
  "how.turn":
    "Quand c’est votre tour, vous êtes conduit sur le site. Si la page vous demande de confirmer, faites-le dans le délai indiqué, sinon la place passe à la personne suivante.",
  "how.privacy":
    "Seul ce dont la file a besoin est conservé : un identifiant aléatoire dans un cookie, ainsi que votre adresse et votre pays pour répartir les places équitablement et empêcher les abus.",
  "how.back": "Pour revenir à la file, utilisez le bouton Retour de votre navigateur.",
  "draw.title": "Vérifier un tirage d’ouverture",
  "draw.intro":
    "Cette page recalcule dans votre navigateur le tirage de la file {queue} : la graine doit correspondre à l’engagement publié à l’ouverture de la pré-file, la liste doit correspondre à l’empreinte de liste publiée, et l’ordre doit découler de la graine et de la liste. Rien ici ne se fie à la réponse du serveur.",
  "draw.fetch": "Vérifier le tirage publié",
  "draw.paste": "Ou coller un enregistrement sauvegardé",
  "draw.recordLabel": "Enregistrement du tirage (JSON)",
  "draw.checkRecord": "Vérifier cet enregistrement",
  "draw.arrivalLabel": "Votre numéro d’arrivée",
  "draw.noscript": "Cette vérification s’exécute dans le navigateur : elle a besoin de JavaScript.",
  "draw.checking": "Vérification…",
  "draw.ok": "Le tirage est correct : {count} dans la liste, ordre recalculé.",
  "draw.bad": "Le tirage n’est PAS correct (voir ci-dessous).",
  "draw.notInList": "Le numéro d’arrivée {arrival} n’est pas dans la liste.",
  "draw.placed": "Le numéro d’arrivée {arrival} a été tiré à la place {place} sur {total}.",
  "draw.serverSaid": "Le serveur a répondu {status}.",
  "draw.fetchFailed": "L’enregistrement du tirage n’a pas pu être récupéré.",
  "draw.notJson": "Ce n’est pas un enregistrement de tirage au format JSON.",
  "gateway.title": "Momentanément indisponible",
  "gateway.heading": "Ce site est injoignable pour le moment",
  "gateway.text": "Votre accès reste valable : veuillez réessayer dans un instant.",
  "gateway.retry": "Réessayer",
  "draw.lineScheme": "le schéma est {scheme} (l’enregistrement indique {said})",
  "draw.lineNotDone":
    "l’enregistrement n’a pas encore de graine, de liste ni d’ordre : le tirage n’a pas eu lieu",
  "draw.lineSeed": "la graine fait 32 octets en hexadécimal minuscule",
  "draw.lineCommitment": "SHA-256(graine) est égal à l’engagement {commitment} publié le {at}",
  "draw.lineList": "le SHA-256 de la liste de {count} numéros d’arrivée est listHash",
  "draw.lineCount": "count correspond à la longueur de la liste",
  "draw.lineOrder":
    "l’ordre recalculé à partir de la graine et de la liste est égal à l’ordre publié",
};
