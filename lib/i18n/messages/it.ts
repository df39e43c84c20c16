/** Italian. */
import type { Catalogue } from "./en.ts";

export const it: Catalogue = {
  "doc.footer": "Sala d’attesa di Tollgate",
  "doc.how": "Come funziona",
  "doc.language": "Lingua",
  "doc.languageNow": "Lingua: {name}",
  "page.title": "Sei in coda",
  "page.message": "Grazie per la pazienza. Ti faremo entrare appena c’è posto.",
  "page.turnTitle": "✅ Tocca a te — {title}",
  "page.previewTitle": "Anteprima — {title}",
  "page.moveTitle": "Spostare qui il tuo posto? — {title}",
  "page.movedTitle": "Il tuo posto è stato spostato — {title}",
  "page.endedTitle": "Il tuo posto è terminato — {title}",
  "live.expired":
    "Il tuo turno è passato: il posto ti è stato tenuto, ma non sei entrato in tempo.",
  "live.ended":
    "Il tuo posto in coda è terminato: sei uscito, è stato liberato per mancate conferme o il tuo turno è passato.",
  "live.full":
    "La sala d’attesa è piena in questo momento. Questa pagina riprova da sola tra poco.",
  "live.closed": "Questa sala d’attesa non è disponibile.",
  "live.cookies":
    "Questa pagina non può tenere il tuo posto qui, perché il browser non conserva il cookie della sala d’attesa in questo riquadro. Apri la sala d’attesa in una finestra a parte per aspettare.",
  "live.hold": "Tocca a te! Il tuo posto è tenuto per {time}: premi «Entra ora».",
  "live.admitted": "Tocca a te! Ti stiamo facendo entrare…",
  "live.prequeue": "Sei nella pre-coda. Questa pagina controlla per te e va avanti da sola.",
  "live.lottery": "Partecipi all’estrazione. Questa pagina controlla per te e va avanti da sola.",
  "live.position":
    "Sei il numero {position} in coda. Questa pagina controlla per te e va avanti da sola.",
  "live.positionOf":
    "Sei il numero {position} di {waiting} in coda. Questa pagina controlla per te e va avanti da sola.",
  "live.positionAbout":
    "Sei circa il numero {position} in coda. Questa pagina controlla per te e va avanti da sola.",
  "wait.joinAgain": "Rimettiti in coda",
  "wait.ownWindow": "Apri la sala d’attesa in una finestra a parte",
  "wait.enterNow": "Entra ora",
  "wait.continue": "Continua",
  "wait.heldFor": "Il tuo posto è tenuto per {countdown}.",
  "wait.notifyMe": "Avvisami",
  "wait.notifyOn": "Ti avviseremo quando tocca a te.",
  "wait.notifyBlocked":
    "Le notifiche sono bloccate per questo sito, quindi non possiamo avvisarti. Tieni aperta questa pagina: va avanti da sola.",
  "wait.arrivalWas": "Il tuo numero di arrivo nella pre-coda era {arrival}.",
  "wait.checkDraw": "Verifica l’estrazione di apertura",
  "wait.howYouGetIn": "Come entri",
  "wait.prequeueWords":
    "All’apertura, tutti quelli nella pre-coda ricevono un posto in coda estratto a sorte, davanti a chi arriva dopo. Il momento in cui sei entrato nella pre-coda non conta.",
  "wait.lotteryWords":
    "Ogni volta che si libera un posto, un’estrazione sceglie chi entra tra tutti quelli in attesa in quel momento. Non c’è un posto in coda: arrivare prima o dopo non cambia nulla.",
  "wait.arrivalNumber":
    "Il tuo numero di arrivo: {arrival} (conservalo per trovare il tuo posto nell’estrazione pubblicata)",
  "wait.commitment":
    "Il segreto dell’estrazione è stato fissato prima che chiunque entrasse; la sua impronta è {fingerprint}.",
  "wait.howToCheck": "Come verificare l’estrazione",
  "wait.openingProgress": "In attesa dell’estrazione di apertura",
  "wait.prequeueEta": "Attesa prevista dopo l’apertura, per un posto estratto a sorte: {wait}",
  "wait.odds": "{waiting} in attesa · la tua probabilità alla prossima estrazione: {chance}",
  "wait.drawProgress": "In attesa dell’estrazione",
  "wait.lotteryEta":
    "Al ritmo attuale, metà di chi aspetta ora entra entro {half}, nove su dieci entro {most}.",
  "wait.placeLabel": "Il tuo posto in coda",
  "wait.place": "N. {position}",
  "wait.placeOf": "N. {position} di {waiting}",
  "wait.placeAbout": "Circa N. {position}",
  "wait.codeOffer": "Hai un codice di priorità?",
  "wait.codeLabel": "Codice di priorità",
  "wait.codeUse": "Usa il codice",
  "wait.inLane": "Fila prioritaria: {lane}",
  "wait.lineProgress": "Avanzamento nella coda",
  "wait.eta": "Attesa stimata: {wait}",
  "time.unknown": "sconosciuta",
  "time.underMinute": "meno di un minuto",
  "time.about": "circa {duration}",
  "time.overDay": "più di un giorno",
  "time.under": "meno dello {value}",
  "notify.title": "Tocca a te",
  "resume.offer": "Continua su un altro dispositivo",
  "resume.offerHint":
    "Apri questa sala d’attesa sul telefono o su un altro computer e mantieni il tuo posto.",
  "resume.showCode": "Mostra un codice",
  "resume.codeLabel": "Il tuo codice",
  "resume.codeHint":
    "Sull’altro dispositivo, scansiona il codice QR, apri il link o inserisci il codice in «{offer}» nella pagina di questa sala d’attesa. Il codice vale una volta sola; poi il tuo posto passa lì.",
  "resume.link": "Link: {link}",
  "resume.copyLink": "Copia il link",
  "resume.copied": "Copiato",
  "resume.qrLabel": "Codice QR che apre il tuo posto su un altro dispositivo",
  "resume.moved":
    "Il tuo posto è passato a un altro dispositivo. Per riprenderlo, inserisci un codice mostrato lì.",
  "resume.haveCode": "Hai un codice da un altro dispositivo?",
  "resume.enterCode": "Inserisci il codice",
  "resume.takePlace": "Continua qui",
  "resume.confirmMove":
    "Spostare il tuo posto in coda su questo dispositivo? L’altro dispositivo lo perderà.",
  "resume.badCode":
    "Questo codice non funziona: è scritto male, è già stato usato o il suo posto è terminato.",
  "resume.tooMany": "Troppi codici errati. Attendi qualche minuto e riprova.",
  "resume.mailOffer": "Mandami un’e-mail quando tocca a me",
  "resume.mailLabel": "Il tuo indirizzo e-mail",
  "resume.mailSave": "Avvisami via e-mail",
  "resume.mailSaved":
    "Ti manderemo un’e-mail quando tocca a te. L’indirizzo viene cancellato appena l’e-mail è inviata o il tuo posto termina.",
  "resume.mailBad": "Non sembra un indirizzo e-mail.",
  "resume.mailError": "Non è stato possibile salvare l’indirizzo adesso. Riprova tra un momento.",
  "resume.mailCancel": "Non mandarmi e-mail",
  "resume.holdWarning":
    "Il tuo posto riservato sta per scadere. Ti serve più tempo? Premi «{button}».",
  "resume.moreTime": "Mi serve più tempo",
  "resume.moreTimeAdded": "Tempo aggiunto.",
  "resume.noMoreTime": "Non si può aggiungere altro tempo.",
  "mail.subjectTurn": "Tocca a te: {title}",
  "mail.subjectNear": "Tra poco tocca a te: {title}",
  "mail.leadTurn": "Tocca a te: puoi entrare ora.",
  "mail.leadNear": "Sei tra i primi {count} in coda.",
  "mail.linkIntro":
    "Apri questo link su questo dispositivo per continuare nella sala d’attesa (il tuo posto passa qui):",
  "mail.code": "Oppure inserisci questo codice nella pagina della sala d’attesa: {code}",
  "mail.ignore": "Se non hai chiesto questa e-mail, puoi ignorarla.",
  "check.title": "Un momento — {title}",
  "check.noscript":
    "Prima di metterti in coda, questa pagina verifica che tu sia una persona e non uno script. La verifica richiede JavaScript: attivalo e ricarica la pagina.",
  "check.checking": "Verifichiamo che tu sia una persona e non uno script…",
  "check.progress": "Verifichiamo che tu sia una persona e non uno script… circa {percent} fatto.",
  "check.done": "Verifica completata. Ti mettiamo in coda…",
  "check.doneResume": "Verifica completata. Spostiamo qui il tuo posto…",
  "check.again": "Ancora una verifica…",
  "check.failed": "La verifica non è riuscita ({reason}). Ricarica la pagina per riprovare.",
  "check.reload": "Ricarica",
  "check.progressLabel": "Avanzamento della verifica",
  "check.errCookies":
    "il browser non conserva il cookie della sala d’attesa in questo riquadro; apri la sala d’attesa in una finestra a parte",
  "check.errWidget": "non è stato possibile caricare la verifica Turnstile",
  "check.errStatus": "la sala d’attesa ha risposto {status}",
  "notice.badRequest": "Richiesta non valida",
  "notice.badQueueLink": "Il nome della coda in questo link non è valido.",
  "notice.badQueueForm": "Il nome della coda in questo modulo non è valido.",
  "notice.denied": "Accesso negato",
  "notice.deniedText": "Non puoi entrare in questa sala d’attesa.",
  "notice.badLink": "C’è un problema con questo link",
  "notice.badLinkText":
    "Questo link alla sala d’attesa non si può usare. Torna sul sito e segui di nuovo il suo link.",
  "notice.moment": "Attendi un momento",
  "notice.momentText":
    "La sala d’attesa non ha potuto rispondere ora. Questa pagina riprova da sola tra {seconds}.",
  "notice.geo": "Non disponibile nel tuo paese",
  "notice.geoText": "Questa sala d’attesa non è disponibile nel tuo paese.",
  "notice.code": "Questo codice di priorità non può essere usato",
  "notice.codeText":
    "Non è valido per questa fila, è scaduto o è già stato usato. Puoi metterti in fila anche senza.",
  "notice.notFound": "Non trovata",
  "notice.visitEnded": "La tua visita è terminata",
  "notice.visitEndedText":
    "Grazie per la visita: il sito l’ha conclusa. Per entrare di nuovo, rimettiti in fila (in fondo).",
  "notice.notFoundText": "Qui non c’è nessuna sala d’attesa.",
  "notice.notOpen": "Non ancora aperta",
  "notice.notOpenText":
    "Questa sala d’attesa non è ancora aperta. Questa pagina ricontrolla da sola ogni minuto.",
  "notice.rate": "Troppi nuovi posti dalla tua rete",
  "notice.rateText":
    "Molte persone della tua rete sono entrate in questa sala d’attesa nell’ultimo minuto. Questa pagina riprova da sola tra {seconds}.",
  "notice.closed": "Chiuso in questo momento",
  "notice.closedText":
    "Questa sala d’attesa è chiusa in questo momento. Torna più tardi; questa pagina ricontrolla da sola.",
  "notice.full": "La sala d’attesa è piena",
  "notice.fullText":
    "Ci sono troppe persone in attesa in questo momento. Questa pagina riprova da sola tra {seconds}.",
  "enqueue.unavailable": "Non disponibile al momento",
  "enqueue.unavailableText": "Questa sala d’attesa non può verificare i suoi link al momento.",
  "enqueue.useLink": "Usa il link del sito",
  "enqueue.required":
    "Si entra in questa sala d’attesa con un link personale del sito che ti ha mandato qui. Torna sul sito e segui il suo link alla coda.",
  "enqueue.invalid":
    "Il link che ti ha portato qui non è valido (potrebbe essere scaduto). Torna sul sito e segui di nuovo il suo link alla coda.",
  "how.title": "Come funziona questa sala d’attesa",
  "how.intro":
    "Quando arrivano più persone di quante il sito possa servirne insieme, ricevi un posto in coda invece di una pagina di errore. Il sito fa entrare le persone a un ritmo costante.",
  "how.keepOpen":
    "Tieni aperta la pagina di attesa: si aggiorna da sola e va avanti quando tocca a te. Chiuderla a lungo significa rinunciare al posto.",
  "how.reload":
    "Ricaricare o riaprire la pagina mantiene il tuo posto (lo ricorda un cookie); un posto nuovo ti metterebbe solo in fondo.",
  "how.random":
    "Alcune vendite estraggono le persone a sorte invece di seguire l’ordine di arrivo; la pagina dice quale vale.",
  "how.turn":
    "Quando tocca a te vieni portato sul sito. Se la pagina ti chiede di confermare, fallo entro il tempo indicato, altrimenti il posto passa alla persona successiva.",
  "how.privacy":
    "Si conserva solo ciò che serve alla coda: un identificativo casuale in un cookie, e il tuo indirizzo e paese per distribuire i posti in modo equo e tenere lontani gli abusi.",
  "how.back": "Per tornare alla coda, usa il pulsante Indietro del browser.",
  "draw.title": "Verifica un’estrazione di apertura",
  "draw.intro":
    "Questa pagina ricalcola nel tuo browser l’estrazione della coda {queue}: il seme deve corrispondere all’impegno pubblicato all’apertura della pre-coda, la lista deve corrispondere all’hash di lista pubblicato e l’ordine deve derivare dal seme e dalla lista. Qui nulla si fida della risposta del server.",
  "draw.fetch": "Verifica l’estrazione pubblicata",
  "draw.paste": "Oppure incolla un record salvato",
  "draw.recordLabel": "Record dell’estrazione (JSON)",
  "draw.checkRecord": "Verifica questo record",
  "draw.arrivalLabel": "Il tuo numero di arrivo",
  "draw.noscript": "Questa verifica si svolge nel browser: richiede JavaScript.",
  "draw.checking": "Verifica in corso…",
  "draw.ok": "L’estrazione è corretta: {count} nella lista, ordine ricalcolato.",
  "draw.bad": "L’estrazione NON è corretta (vedi sotto).",
  "draw.notInList": "Il numero di arrivo {arrival} non è nella lista.",
  "draw.placed": "Al numero di arrivo {arrival} è toccato il posto {place} di {total}.",
  "draw.serverSaid": "Il server ha risposto {status}.",
  "draw.fetchFailed": "Non è stato possibile recuperare il record dell’estrazione.",
  "draw.notJson": "Questo non è un record di estrazione in JSON.",
  "gateway.title": "Temporaneamente non disponibile",
  "gateway.heading": "Questo sito non è raggiungibile in questo momento",
  "gateway.text": "Il tuo accesso resta valido: riprova tra un momento.",
  "gateway.retry": "Riprova",
  "draw.lineScheme": "lo schema è {scheme} (il record dice {said})",
  "draw.lineNotDone": "il record non ha ancora seme, lista e ordine: l’estrazione non è avvenuta",
  "draw.lineSeed": "il seme è di 32 byte in esadecimale minuscolo",
  "draw.lineCommitment": "SHA-256(seme) è uguale all’impegno {commitment} pubblicato il {at}",
  "draw.lineList": "lo SHA-256 della lista di {count} numeri di arrivo è listHash",
  "draw.lineCount": "count corrisponde alla lunghezza della lista",
  "draw.lineOrder": "l’ordine ricalcolato da seme e lista è uguale a quello pubblicato",
};
