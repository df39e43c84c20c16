/** Dutch. */
import type { Catalogue } from "./en.ts";

export const nl: Catalogue = {
  "doc.footer": "Wachtruimte door Tollgate",
  "doc.how": "Hoe het werkt",
  "doc.language": "Taal",
  "doc.languageNow": "Taal: {name}",
  "page.title": "Je staat in de rij",
  "page.message": "Bedankt voor je geduld. We laten je binnen zodra er plek is.",
  "page.turnTitle": "✅ Je bent aan de beurt — {title}",
  "page.previewTitle": "Voorbeeld — {title}",
  "page.moveTitle": "Uw plek hierheen verplaatsen? — {title}",
  "page.movedTitle": "Uw plek is verplaatst — {title}",
  "page.endedTitle": "Uw plek is beëindigd — {title}",
  "live.expired":
    "Je beurt is voorbij: je plek werd voor je vastgehouden, maar je bent niet op tijd binnengegaan.",
  "live.ended":
    "Uw plaats in de rij is vervallen: u bent vertrokken, de plaats is vervallen na gemiste controles, of uw beurt is voorbij.",
  "live.full": "De wachtruimte is op dit moment vol. Deze pagina probeert het zo vanzelf opnieuw.",
  "live.closed": "Deze wachtruimte is niet beschikbaar.",
  "live.cookies":
    "Deze pagina kan je plek hier niet bewaren, omdat de browser de cookie van de wachtruimte in dit kader niet bewaart. Open de wachtruimte in een eigen venster om te wachten.",
  "live.hold": "Je bent aan de beurt! Je plek wordt {time} vastgehouden: druk op ‘Nu naar binnen’.",
  "live.admitted": "Je bent aan de beurt! We brengen je naar binnen…",
  "live.prequeue":
    "Je staat in de voorrij. Deze pagina controleert voor je en gaat vanzelf verder.",
  "live.lottery":
    "Je doet mee aan de loting. Deze pagina controleert voor je en gaat vanzelf verder.",
  "live.position":
    "Je bent nummer {position} in de rij. Deze pagina controleert voor je en gaat vanzelf verder.",
  "live.positionOf":
    "Je bent nummer {position} van {waiting} in de rij. Deze pagina controleert voor je en gaat vanzelf verder.",
  "live.positionAbout":
    "Je bent ongeveer nummer {position} in de rij. Deze pagina controleert voor je en gaat vanzelf verder.",
  "wait.joinAgain": "Opnieuw in de rij gaan staan",
  "wait.ownWindow": "De wachtruimte in een eigen venster openen",
  "wait.enterNow": "Nu naar binnen",
  "wait.continue": "Doorgaan",
  "wait.heldFor": "Je plek wordt {countdown} vastgehouden.",
  "wait.notifyMe": "Stuur me een melding",
  "wait.notifyOn": "We sturen je een melding als je aan de beurt bent.",
  "wait.notifyBlocked":
    "Meldingen zijn voor deze site geblokkeerd, dus we kunnen je geen melding sturen. Houd deze pagina open: hij gaat vanzelf verder.",
  "wait.arrivalWas": "Je aankomstnummer in de voorrij was {arrival}.",
  "wait.checkDraw": "De openingsloting controleren",
  "wait.howYouGetIn": "Hoe je binnenkomt",
  "wait.prequeueWords":
    "Bij de opening krijgt iedereen in de voorrij een willekeurige plek in de rij, vóór iedereen die later komt. Wanneer je bij de voorrij kwam, maakt niet uit.",
  "wait.lotteryWords":
    "Elke keer dat er een plek vrijkomt, bepaalt een loting wie er naar binnen mag, uit iedereen die op dat moment wacht. Er is geen plek in de rij: eerder of later komen maakt niet uit.",
  "wait.arrivalNumber":
    "Je aankomstnummer: {arrival} (bewaar het om je plek in de gepubliceerde loting te vinden)",
  "wait.commitment":
    "Het geheim van de loting lag vast voordat iemand zich aansloot; de vingerafdruk ervan is {fingerprint}.",
  "wait.howToCheck": "Hoe je de loting controleert",
  "wait.openingProgress": "Wachten op de openingsloting",
  "wait.prequeueEta": "Verwachte wachttijd na de opening, voor een willekeurige plek: {wait}",
  "wait.odds": "{waiting} wachtenden · je kans bij de volgende loting: {chance}",
  "wait.drawProgress": "Wachten op de loting",
  "wait.lotteryEta":
    "In het huidige tempo is de helft van de wachtenden binnen {half} binnen, negen op de tien binnen {most}.",
  "wait.placeLabel": "Je plek in de rij",
  "wait.place": "Nr. {position}",
  "wait.placeOf": "Nr. {position} van {waiting}",
  "wait.placeAbout": "Ongeveer nr. {position}",
  "wait.codeOffer": "Heb je een voorrangscode?",
  "wait.codeLabel": "Voorrangscode",
  "wait.codeUse": "Code gebruiken",
  "wait.inLane": "Voorrangsrij: {lane}",
  "wait.lineProgress": "Voortgang in de rij",
  "wait.eta": "Geschatte wachttijd: {wait}",
  "time.unknown": "onbekend",
  "time.underMinute": "minder dan een minuut",
  "time.about": "ongeveer {duration}",
  "time.overDay": "meer dan een dag",
  "time.under": "minder dan {value}",
  "notify.title": "Je bent aan de beurt",
  "resume.offer": "Verder op een ander apparaat",
  "resume.offerHint":
    "Open deze wachtruimte op je telefoon of een andere computer en houd je plek.",
  "resume.showCode": "Code tonen",
  "resume.codeLabel": "Je code",
  "resume.codeHint":
    "Scan op het andere apparaat de QR-code, open de link of voer de code in onder ‘{offer}’ op de pagina van deze wachtruimte. De code werkt één keer; je plek gaat dan daarheen.",
  "resume.link": "Link: {link}",
  "resume.copyLink": "Link kopiëren",
  "resume.copied": "Gekopieerd",
  "resume.qrLabel": "QR-code die je plek op een ander apparaat opent",
  "resume.moved":
    "Je plek is naar een ander apparaat verhuisd. Voer een code in die daar wordt getoond om hem terug te halen.",
  "resume.haveCode": "Heb je een code van een ander apparaat?",
  "resume.enterCode": "Code invoeren",
  "resume.takePlace": "Hier verdergaan",
  "resume.confirmMove":
    "Je plek in de rij naar dit apparaat halen? Het andere apparaat raakt hem dan kwijt.",
  "resume.badCode":
    "Die code werkt niet: hij is verkeerd getypt, al gebruikt of de plek is afgelopen.",
  "resume.tooMany": "Te veel verkeerde codes. Wacht een paar minuten en probeer het opnieuw.",
  "resume.mailOffer": "Mail me als ik aan de beurt ben",
  "resume.mailLabel": "Je e-mailadres",
  "resume.mailSave": "Mail me",
  "resume.mailSaved":
    "We mailen je als je aan de beurt bent. Het adres wordt gewist zodra de e-mail is verstuurd of je plek afloopt.",
  "resume.mailBad": "Dat lijkt geen e-mailadres.",
  "resume.mailError": "Het adres kon nu niet worden opgeslagen. Probeer het zo opnieuw.",
  "resume.mailCancel": "Mail me niet",
  "resume.holdWarning": "Je vastgehouden plek loopt bijna af. Meer tijd nodig? Druk op ‘{button}’.",
  "resume.moreTime": "Ik heb meer tijd nodig",
  "resume.moreTimeAdded": "Extra tijd toegevoegd.",
  "resume.noMoreTime": "Er kan geen tijd meer worden toegevoegd.",
  "mail.subjectTurn": "Je bent aan de beurt: {title}",
  "mail.subjectNear": "Bijna aan de beurt: {title}",
  "mail.leadTurn": "Je bent aan de beurt: je kunt nu naar binnen.",
  "mail.leadNear": "Je hoort bij de eerste {count} in de rij.",
  "mail.linkIntro":
    "Open deze link op dit apparaat om verder te gaan in de wachtruimte (je plek gaat hierheen):",
  "mail.code": "Of voer deze code in op de pagina van de wachtruimte: {code}",
  "mail.ignore": "Heb je deze e-mail niet aangevraagd? Dan kun je hem negeren.",
  "check.title": "Een ogenblik — {title}",
  "check.noscript":
    "Voordat je in de rij gaat staan, controleert deze pagina of je een mens bent en geen script. Daarvoor is JavaScript nodig: zet het aan en laad deze pagina opnieuw.",
  "check.checking": "We controleren of je een mens bent en geen script…",
  "check.progress": "We controleren of je een mens bent en geen script… ongeveer {percent} klaar.",
  "check.done": "Controle klaar. Je wordt in de rij gezet…",
  "check.doneResume": "Controle klaar. Je plek wordt hierheen verplaatst…",
  "check.again": "Nog één controle…",
  "check.failed":
    "De controle is niet gelukt ({reason}). Laad de pagina opnieuw om het nog eens te proberen.",
  "check.reload": "Opnieuw laden",
  "check.progressLabel": "Voortgang van de controle",
  "check.errCookies":
    "de browser bewaart de cookie van de wachtruimte niet in dit kader; open de wachtruimte in een eigen venster",
  "check.errWidget": "de Turnstile-controle kon niet worden geladen",
  "check.errStatus": "de wachtruimte antwoordde {status}",
  "notice.badRequest": "Ongeldig verzoek",
  "notice.badQueueLink": "De naam van de rij in deze link is ongeldig.",
  "notice.badQueueForm": "De naam van de rij in dit formulier is ongeldig.",
  "notice.denied": "Toegang geweigerd",
  "notice.deniedText": "Je kunt niet aan deze wachtruimte deelnemen.",
  "notice.badLink": "Er klopt iets niet met deze link",
  "notice.badLinkText":
    "Deze link naar de wachtruimte kan niet worden gebruikt. Ga terug naar de site en volg de link opnieuw.",
  "notice.moment": "Een ogenblik geduld",
  "notice.momentText":
    "De wachtruimte kon nu niet antwoorden. Deze pagina probeert het over {seconds} vanzelf opnieuw.",
  "notice.geo": "Niet beschikbaar in jouw land",
  "notice.geoText": "Deze wachtruimte is niet beschikbaar in jouw land.",
  "notice.code": "Deze voorrangscode kan niet worden gebruikt",
  "notice.codeText":
    "Hij geldt niet voor deze rij, is verlopen of is al gebruikt. Je kunt ook zonder code in de rij gaan staan.",
  "notice.notFound": "Niet gevonden",
  "notice.visitEnded": "Uw bezoek is beëindigd",
  "notice.visitEndedText":
    "Bedankt voor uw bezoek: de site heeft het beëindigd. Om weer naar binnen te gaan, sluit u opnieuw aan in de rij (achteraan).",
  "notice.notFoundText": "Hier is geen wachtruimte.",
  "notice.notOpen": "Nog niet open",
  "notice.notOpenText":
    "Deze wachtruimte is nog niet open. Deze pagina controleert elke minuut vanzelf opnieuw.",
  "notice.rate": "Te veel nieuwe plekken vanaf jouw netwerk",
  "notice.rateText":
    "Veel mensen op jouw netwerk zijn de afgelopen minuut deze wachtruimte binnengekomen. Deze pagina probeert het over {seconds} vanzelf opnieuw.",
  "notice.closed": "Op dit moment gesloten",
  "notice.closedText":
    "Deze wachtruimte is op dit moment gesloten. Kom later terug; deze pagina controleert vanzelf opnieuw.",
  "notice.full": "De wachtruimte is vol",
  "notice.fullText":
    "Er wachten nu te veel mensen. Deze pagina probeert het over {seconds} vanzelf opnieuw.",
  "enqueue.unavailable": "Nu niet beschikbaar",
  "enqueue.unavailableText": "Deze wachtruimte kan haar links nu niet controleren.",
  "enqueue.useLink": "Gebruik de link van de site",
  "enqueue.required":
    "Je komt in deze wachtruimte via een persoonlijke link van de site die je hierheen stuurde. Ga terug naar de site en volg de link naar de rij.",
  "enqueue.invalid":
    "De link waarmee je hier kwam is ongeldig (misschien verlopen). Ga terug naar de site en volg de link naar de rij opnieuw.",
  "how.title": "Hoe deze wachtruimte werkt",
  "how.intro":
    "Als er meer mensen komen dan de site tegelijk aankan, krijg je een plek in de rij in plaats van een foutpagina. De site laat mensen in een vast tempo binnen.",
  "how.keepOpen":
    "Houd de wachtpagina open: hij meldt zich vanzelf en gaat verder als je aan de beurt bent. Als je hem lang sluit, geef je je plek op.",
  "how.reload":
    "Opnieuw laden of de pagina opnieuw openen houdt je plek (een cookie onthoudt hem); een nieuwe plek zou je alleen achteraan zetten.",
  "how.random":
    "Sommige verkopen loten mensen in plaats van wie het eerst komt, het eerst maalt; de pagina zegt welke geldt.",
  "how.turn":
    "Als je aan de beurt bent, word je naar de site gebracht. Vraagt de pagina om een bevestiging, bevestig dan binnen de getoonde tijd, anders gaat de plek naar de volgende.",
  "how.privacy":
    "Alleen wat de rij nodig heeft wordt bewaard: een willekeurige id in een cookie, en je adres en land om plekken eerlijk te verdelen en misbruik te weren.",
  "how.back": "Ga terug naar de rij met de Terug-knop van je browser.",
  "draw.title": "Een openingsloting controleren",
  "draw.intro":
    "Deze pagina rekent de loting van rij {queue} in je browser na: de seed moet hashen naar de toezegging die bij het openen van de voorrij werd gepubliceerd, de lijst moet hashen naar de gepubliceerde lijsthash en de volgorde moet volgen uit de seed en de lijst. Niets hier vertrouwt op het antwoord van de server.",
  "draw.fetch": "De gepubliceerde loting controleren",
  "draw.paste": "Of plak een opgeslagen record",
  "draw.recordLabel": "Record van de loting (JSON)",
  "draw.checkRecord": "Dit record controleren",
  "draw.arrivalLabel": "Je aankomstnummer",
  "draw.noscript": "Deze controle draait in de browser: er is JavaScript voor nodig.",
  "draw.checking": "Bezig met controleren…",
  "draw.ok": "De loting klopt: {count} in de lijst, volgorde nagerekend.",
  "draw.bad": "De loting klopt NIET (zie hieronder).",
  "draw.notInList": "Aankomstnummer {arrival} staat niet in de lijst.",
  "draw.placed": "Aankomstnummer {arrival} is geloot op plek {place} van {total}.",
  "draw.serverSaid": "De server antwoordde {status}.",
  "draw.fetchFailed": "Het record van de loting kon niet worden opgehaald.",
  "draw.notJson": "Dat is geen JSON-record van een loting.",
  "gateway.title": "Tijdelijk niet beschikbaar",
  "gateway.heading": "Deze site is nu niet bereikbaar",
  "gateway.text": "Je toegang blijft geldig: probeer het zo opnieuw.",
  "gateway.retry": "Opnieuw proberen",
  "draw.lineScheme": "schema is {scheme} (record zegt {said})",
  "draw.lineNotDone":
    "het record heeft nog geen seed, lijst en volgorde: de loting is nog niet gedaan",
  "draw.lineSeed": "de seed is 32 bytes hex in kleine letters",
  "draw.lineCommitment":
    "SHA-256(seed) is gelijk aan de toezegging {commitment}, gepubliceerd op {at}",
  "draw.lineList": "SHA-256 van de lijst met {count} aankomstnummers is listHash",
  "draw.lineCount": "count komt overeen met de lengte van de lijst",
  "draw.lineOrder":
    "de volgorde, nagerekend uit seed en lijst, is gelijk aan de gepubliceerde volgorde",
};
