/** Spanish. */
import type { Catalogue } from "./en.ts";

export const es: Catalogue = {
  "doc.footer": "Sala de espera de Tollgate",
  "doc.how": "Cómo funciona",
  "doc.language": "Idioma",
  "doc.languageNow": "Idioma: {name}",
  "page.title": "Estás en la fila",
  "page.message": "Gracias por tu paciencia. Te dejaremos entrar en cuanto haya sitio.",
  "page.turnTitle": "✅ Es tu turno — {title}",
  "page.previewTitle": "Vista previa — {title}",
  "page.moveTitle": "¿Mover tu lugar aquí? — {title}",
  "page.movedTitle": "Tu lugar se ha movido — {title}",
  "page.endedTitle": "Tu lugar ha terminado — {title}",
  "live.expired": "Tu turno ha pasado: te guardamos el sitio, pero no entraste a tiempo.",
  "live.ended":
    "Tu lugar en la fila ha terminado: saliste, se eliminó por no responder a tiempo o tu turno pasó.",
  "live.full":
    "La sala de espera está llena ahora mismo. Esta página vuelve a intentarlo sola en un momento.",
  "live.closed": "Esta sala de espera no está disponible.",
  "live.cookies":
    "Esta página no puede guardar tu sitio aquí porque el navegador no conserva la cookie de la sala de espera en este marco. Abre la sala de espera en su propia ventana para esperar.",
  "live.hold": "¡Es tu turno! Tu sitio está reservado durante {time}: pulsa «Entrar ahora».",
  "live.admitted": "¡Es tu turno! Te estamos llevando dentro…",
  "live.prequeue": "Estás en la prefila. Esta página comprueba por ti y avanza sola.",
  "live.lottery": "Estás en el sorteo. Esta página comprueba por ti y avanza sola.",
  "live.position":
    "Eres el número {position} en la fila. Esta página comprueba por ti y avanza sola.",
  "live.positionOf":
    "Eres el número {position} de {waiting} en la fila. Esta página comprueba por ti y avanza sola.",
  "live.positionAbout":
    "Eres aproximadamente el número {position} en la fila. Esta página comprueba por ti y avanza sola.",
  "wait.joinAgain": "Volver a la fila",
  "wait.ownWindow": "Abrir la sala de espera en su propia ventana",
  "wait.enterNow": "Entrar ahora",
  "wait.continue": "Continuar",
  "wait.heldFor": "Tu sitio está reservado durante {countdown}.",
  "wait.notifyMe": "Avisarme",
  "wait.notifyOn": "Te avisaremos cuando sea tu turno.",
  "wait.notifyBlocked":
    "Las notificaciones están bloqueadas para este sitio, así que no podemos avisarte. Mantén esta página abierta: avanza sola.",
  "wait.arrivalWas": "Tu número de llegada en la prefila era {arrival}.",
  "wait.checkDraw": "Comprobar el sorteo de apertura",
  "wait.howYouGetIn": "Cómo entras",
  "wait.prequeueWords":
    "En la apertura, todas las personas de la prefila reciben un puesto al azar en la fila, por delante de quienes lleguen después. No importa cuándo te uniste a la prefila.",
  "wait.lotteryWords":
    "Cada vez que queda un sitio libre, un sorteo elige quién entra entre todas las personas que esperan en ese momento. No hay puesto en la fila: llegar antes o después no cambia nada.",
  "wait.arrivalNumber":
    "Tu número de llegada: {arrival} (guárdalo para encontrar tu puesto en el sorteo publicado)",
  "wait.commitment":
    "El secreto del sorteo se fijó antes de que nadie se uniera; su huella es {fingerprint}.",
  "wait.howToCheck": "Cómo comprobar el sorteo",
  "wait.openingProgress": "Esperando el sorteo de apertura",
  "wait.prequeueEta": "Espera prevista tras la apertura, para un puesto al azar: {wait}",
  "wait.odds": "{waiting} esperando · tu probabilidad en el próximo sorteo: {chance}",
  "wait.drawProgress": "Esperando el sorteo",
  "wait.lotteryEta":
    "Al ritmo actual, la mitad de quienes esperan ahora entran en menos de {half} y nueve de cada diez en menos de {most}.",
  "wait.placeLabel": "Tu puesto en la fila",
  "wait.place": "N.º {position}",
  "wait.placeOf": "N.º {position} de {waiting}",
  "wait.placeAbout": "Aprox. N.º {position}",
  "wait.codeOffer": "¿Tienes un código de prioridad?",
  "wait.codeLabel": "Código de prioridad",
  "wait.codeUse": "Usar código",
  "wait.inLane": "Fila prioritaria: {lane}",
  "wait.lineProgress": "Avance en la fila",
  "wait.eta": "Espera estimada: {wait}",
  "time.unknown": "desconocida",
  "time.underMinute": "menos de un minuto",
  "time.about": "unos {duration}",
  "time.overDay": "más de un día",
  "time.under": "menos del {value}",
  "notify.title": "Es tu turno",
  "resume.offer": "Continuar en otro dispositivo",
  "resume.offerHint": "Abre esta sala de espera en tu móvil u otro ordenador y conserva tu sitio.",
  "resume.showCode": "Mostrar un código",
  "resume.codeLabel": "Tu código",
  "resume.codeHint":
    "En el otro dispositivo, escanea el código QR, abre el enlace o introduce el código en «{offer}» en la página de esta sala de espera. El código sirve una sola vez; después tu sitio pasa allí.",
  "resume.link": "Enlace: {link}",
  "resume.copyLink": "Copiar enlace",
  "resume.copied": "Copiado",
  "resume.qrLabel": "Código QR que abre tu sitio en otro dispositivo",
  "resume.moved":
    "Tu sitio pasó a otro dispositivo. Para recuperarlo, introduce un código que se muestre allí.",
  "resume.haveCode": "¿Tienes un código de otro dispositivo?",
  "resume.enterCode": "Introducir el código",
  "resume.takePlace": "Continuar aquí",
  "resume.confirmMove":
    "¿Pasar tu sitio en la fila a este dispositivo? El otro dispositivo lo perderá.",
  "resume.badCode": "Ese código no funciona: está mal escrito, ya se usó o su sitio ha terminado.",
  "resume.tooMany": "Demasiados códigos incorrectos. Espera unos minutos y vuelve a intentarlo.",
  "resume.mailOffer": "Enviarme un correo cuando sea mi turno",
  "resume.mailLabel": "Tu dirección de correo electrónico",
  "resume.mailSave": "Avisarme por correo",
  "resume.mailSaved":
    "Te enviaremos un correo cuando sea tu turno. La dirección se borra en cuanto se envía el correo o termina tu sitio.",
  "resume.mailBad": "Eso no parece una dirección de correo electrónico.",
  "resume.mailError":
    "No se pudo guardar la dirección ahora mismo. Vuelve a intentarlo en un momento.",
  "resume.mailCancel": "No enviarme correos",
  "resume.holdWarning":
    "Tu sitio reservado termina pronto. ¿Necesitas más tiempo? Pulsa «{button}».",
  "resume.moreTime": "Necesito más tiempo",
  "resume.moreTimeAdded": "Se añadió más tiempo.",
  "resume.noMoreTime": "No se puede añadir más tiempo.",
  "mail.subjectTurn": "Es tu turno: {title}",
  "mail.subjectNear": "Casi es tu turno: {title}",
  "mail.leadTurn": "Es tu turno: ya puedes entrar.",
  "mail.leadNear": "Estás entre los {count} primeros de la fila.",
  "mail.linkIntro":
    "Abre este enlace en este dispositivo para continuar en la sala de espera (tu sitio pasa aquí):",
  "mail.code": "O introduce este código en la página de la sala de espera: {code}",
  "mail.ignore": "Si no pediste este correo, puedes ignorarlo.",
  "check.title": "Un momento — {title}",
  "check.noscript":
    "Antes de entrar en la fila, esta página comprueba que eres una persona y no un script. La comprobación necesita JavaScript: actívalo y vuelve a cargar esta página.",
  "check.checking": "Comprobando que eres una persona y no un script…",
  "check.progress":
    "Comprobando que eres una persona y no un script… alrededor del {percent} hecho.",
  "check.done": "Comprobación terminada. Entrando en la fila…",
  "check.doneResume": "Comprobación terminada. Trayendo tu lugar aquí…",
  "check.again": "Una comprobación más…",
  "check.failed":
    "La comprobación no ha funcionado ({reason}). Vuelve a cargar la página para intentarlo de nuevo.",
  "check.reload": "Volver a cargar",
  "check.progressLabel": "Progreso de la comprobación",
  "check.errCookies":
    "el navegador no conserva la cookie de la sala de espera en este marco; abre la sala de espera en su propia ventana",
  "check.errWidget": "no se pudo cargar la comprobación de Turnstile",
  "check.errStatus": "la sala de espera respondió {status}",
  "notice.badRequest": "Solicitud incorrecta",
  "notice.badQueueLink": "El nombre de la fila en este enlace no es válido.",
  "notice.badQueueForm": "El nombre de la fila en este formulario no es válido.",
  "notice.denied": "Acceso denegado",
  "notice.deniedText": "No puedes unirte a esta sala de espera.",
  "notice.badLink": "Algo falla en este enlace",
  "notice.badLinkText":
    "Este enlace a la sala de espera no se puede usar. Vuelve al sitio y sigue de nuevo su enlace.",
  "notice.moment": "Espera un momento, por favor",
  "notice.momentText":
    "La sala de espera no ha podido responder ahora mismo. Esta página vuelve a intentarlo sola en {seconds}.",
  "notice.geo": "No disponible en tu país",
  "notice.geoText": "Esta sala de espera no está disponible en tu país.",
  "notice.code": "Este código de prioridad no se puede usar",
  "notice.codeText":
    "No es válido para esta fila, ha caducado o ya se usó. Puedes unirte a la fila sin él.",
  "notice.notFound": "No encontrado",
  "notice.visitEnded": "Tu visita ha terminado",
  "notice.visitEndedText":
    "Gracias por tu visita: el sitio la ha finalizado. Para volver a entrar, únete de nuevo a la fila (al final).",
  "notice.notFoundText": "Aquí no hay ninguna sala de espera.",
  "notice.notOpen": "Aún no está abierta",
  "notice.notOpenText":
    "Esta sala de espera aún no está abierta. Esta página vuelve a comprobarlo sola cada minuto.",
  "notice.rate": "Demasiados puestos nuevos desde tu red",
  "notice.rateText":
    "Muchas personas de tu red se han unido a esta sala de espera en el último minuto. Esta página vuelve a intentarlo sola en {seconds}.",
  "notice.closed": "Cerrado en este momento",
  "notice.closedText":
    "Esta sala de espera está cerrada en este momento. Vuelve más tarde; esta página vuelve a comprobarlo por sí sola.",
  "notice.full": "La sala de espera está llena",
  "notice.fullText":
    "Hay demasiadas personas esperando ahora mismo. Esta página vuelve a intentarlo sola en {seconds}.",
  "enqueue.unavailable": "No disponible ahora mismo",
  "enqueue.unavailableText": "Esta sala de espera no puede comprobar sus enlaces ahora mismo.",
  "enqueue.useLink": "Usa el enlace del sitio",
  "enqueue.required":
    "A esta sala de espera se entra con un enlace personal del sitio que te ha enviado aquí. Vuelve al sitio y sigue su enlace a la fila.",
  "enqueue.invalid":
    "El enlace que te ha traído aquí no es válido (puede que haya caducado). Vuelve al sitio y sigue de nuevo su enlace a la fila.",
  "how.title": "Cómo funciona esta sala de espera",
  "how.intro":
    "Cuando llega más gente de la que el sitio puede atender a la vez, recibes un puesto en la fila en lugar de una página de error. El sitio deja entrar a la gente a un ritmo constante.",
  "how.keepOpen":
    "Mantén abierta la página de espera: se comunica sola y avanza cuando es tu turno. Cerrarla durante mucho tiempo hace que pierdas tu puesto.",
  "how.reload":
    "Volver a cargar o abrir de nuevo la página conserva tu puesto (una cookie lo recuerda); un puesto nuevo solo te pondría al final.",
  "how.random":
    "Algunas ventas sortean a la gente en lugar de atender por orden de llegada; la página indica cuál se aplica.",
  "how.turn":
    "Cuando sea tu turno, te llevaremos al sitio. Si la página te pide que confirmes, hazlo dentro del tiempo indicado o el puesto pasará a la siguiente persona.",
  "how.privacy":
    "Solo se guarda lo que la fila necesita: un identificador aleatorio en una cookie, y tu dirección y país para repartir los puestos con justicia y evitar abusos.",
  "how.back": "Para volver a la fila, usa el botón Atrás de tu navegador.",
  "draw.title": "Comprobar un sorteo de apertura",
  "draw.intro":
    "Esta página recalcula en tu navegador el sorteo de la fila {queue}: la semilla debe coincidir con el compromiso publicado al abrir la prefila, la lista debe coincidir con el hash de lista publicado y el orden debe derivarse de la semilla y la lista. Aquí nada se fía de la respuesta del servidor.",
  "draw.fetch": "Comprobar el sorteo publicado",
  "draw.paste": "O pegar un registro guardado",
  "draw.recordLabel": "Registro del sorteo (JSON)",
  "draw.checkRecord": "Comprobar este registro",
  "draw.arrivalLabel": "Tu número de llegada",
  "draw.noscript": "Esta comprobación se ejecuta en el navegador: necesita JavaScript.",
  "draw.checking": "Comprobando…",
  "draw.ok": "El sorteo es correcto: {count} en la lista, orden recalculado.",
  "draw.bad": "El sorteo NO es correcto (mira abajo).",
  "draw.notInList": "El número de llegada {arrival} no está en la lista.",
  "draw.placed": "Al número de llegada {arrival} le tocó el puesto {place} de {total}.",
  "draw.serverSaid": "El servidor respondió {status}.",
  "draw.fetchFailed": "No se pudo obtener el registro del sorteo.",
  "draw.notJson": "Eso no es un registro de sorteo en JSON.",
  "gateway.title": "No disponible temporalmente",
  "gateway.heading": "Este sitio no está disponible ahora mismo",
  "gateway.text": "Tu acceso sigue siendo válido: vuelve a intentarlo en un momento.",
  "gateway.retry": "Reintentar",
  "draw.lineScheme": "el esquema es {scheme} (el registro dice {said})",
  "draw.lineNotDone": "el registro aún no tiene semilla, lista ni orden: el sorteo no se ha hecho",
  "draw.lineSeed": "la semilla son 32 bytes en hexadecimal en minúsculas",
  "draw.lineCommitment": "SHA-256(semilla) es igual al compromiso {commitment} publicado el {at}",
  "draw.lineList": "el SHA-256 de la lista de {count} números de llegada es listHash",
  "draw.lineCount": "count coincide con la longitud de la lista",
  "draw.lineOrder":
    "el orden recalculado a partir de la semilla y la lista es igual al orden publicado",
};
