/** German. */
import type { Catalogue } from "./en.ts";

export const de: Catalogue = {
  "doc.footer": "Warteraum von Tollgate",
  "doc.how": "So funktioniert es",
  "doc.language": "Sprache",
  "doc.languageNow": "Sprache: {name}",
  "page.title": "Sie sind in der Warteschlange",
  "page.message": "Danke für Ihre Geduld. Wir lassen Sie herein, sobald Platz ist.",
  "page.turnTitle": "✅ Sie sind dran — {title}",
  "page.previewTitle": "Vorschau — {title}",
  "page.moveTitle": "Platz hierher übertragen? — {title}",
  "page.movedTitle": "Ihr Platz ist umgezogen — {title}",
  "page.endedTitle": "Ihr Platz ist beendet — {title}",
  "live.expired":
    "Ihr Platz ist verfallen: Er wurde für Sie freigehalten, aber nicht rechtzeitig genutzt.",
  "live.ended":
    "Ihr Platz ist nicht mehr vorhanden: Sie haben die Warteschlange verlassen, der Platz wurde nach verpassten Rückmeldungen entfernt, oder Ihre Zeit ist abgelaufen.",
  "live.full":
    "Der Warteraum ist gerade voll. Diese Seite versucht es gleich von selbst noch einmal.",
  "live.closed": "Dieser Warteraum ist nicht verfügbar.",
  "live.cookies":
    "Diese Seite kann Ihren Platz hier nicht halten, weil der Browser das Cookie des Warteraums in diesem Rahmen nicht speichert. Öffnen Sie den Warteraum in einem eigenen Fenster, um zu warten.",
  "live.hold":
    "Sie sind dran! Ihr Platz ist noch {time} für Sie reserviert: Drücken Sie „Jetzt eintreten“.",
  "live.admitted": "Sie sind dran! Sie werden weitergeleitet …",
  "live.prequeue":
    "Sie sind in der Vorwarteschlange. Diese Seite prüft für Sie und geht von selbst weiter.",
  "live.lottery":
    "Sie nehmen an der Verlosung teil. Diese Seite prüft für Sie und geht von selbst weiter.",
  "live.position":
    "Sie sind Nummer {position} in der Warteschlange. Diese Seite prüft für Sie und geht von selbst weiter.",
  "live.positionOf":
    "Sie sind Nummer {position} von {waiting} in der Warteschlange. Diese Seite prüft für Sie und geht von selbst weiter.",
  "live.positionAbout":
    "Sie sind etwa Nummer {position} in der Warteschlange. Diese Seite prüft für Sie und geht von selbst weiter.",
  "wait.joinAgain": "Erneut anstellen",
  "wait.ownWindow": "Warteraum in eigenem Fenster öffnen",
  "wait.enterNow": "Jetzt eintreten",
  "wait.continue": "Weiter",
  "wait.heldFor": "Ihr Platz ist noch {countdown} reserviert.",
  "wait.notifyMe": "Benachrichtigen",
  "wait.notifyOn": "Wir benachrichtigen Sie, wenn Sie dran sind.",
  "wait.notifyBlocked":
    "Benachrichtigungen sind für diese Website blockiert, daher können wir Sie nicht benachrichtigen. Lassen Sie diese Seite offen: Sie geht von selbst weiter.",
  "wait.arrivalWas": "Ihre Ankunftsnummer in der Vorwarteschlange war {arrival}.",
  "wait.checkDraw": "Die Eröffnungsziehung prüfen",
  "wait.howYouGetIn": "So kommen Sie hinein",
  "wait.prequeueWords":
    "Zur Eröffnung erhalten alle in der Vorwarteschlange einen zufälligen Platz, vor allen, die später kommen. Wann Sie der Vorwarteschlange beigetreten sind, spielt keine Rolle.",
  "wait.lotteryWords":
    "Jedes Mal, wenn ein Platz frei wird, entscheidet eine Zufallsziehung unter allen, die gerade warten, wer hineinkommt. Es gibt keinen Platz in einer Reihe: Ob Sie früher oder später kommen, spielt keine Rolle.",
  "wait.arrivalNumber":
    "Ihre Ankunftsnummer: {arrival} (notieren Sie sie, um Ihren Platz in der veröffentlichten Ziehung zu finden)",
  "wait.commitment":
    "Das Geheimnis der Ziehung stand fest, bevor jemand beitrat; sein Fingerabdruck ist {fingerprint}.",
  "wait.howToCheck": "So prüfen Sie die Ziehung",
  "wait.openingProgress": "Warten auf die Eröffnungsziehung",
  "wait.prequeueEta": "Erwartete Wartezeit nach der Eröffnung, für einen zufälligen Platz: {wait}",
  "wait.odds": "{waiting} warten · Ihre Chance bei der nächsten Ziehung: {chance}",
  "wait.drawProgress": "Warten auf die Ziehung",
  "wait.lotteryEta":
    "Beim jetzigen Tempo kommt die Hälfte der Wartenden innerhalb von {half} hinein, neun von zehn innerhalb von {most}.",
  "wait.placeLabel": "Ihr Platz in der Warteschlange",
  "wait.place": "Nr. {position}",
  "wait.placeOf": "Nr. {position} von {waiting}",
  "wait.placeAbout": "Etwa Nr. {position}",
  "wait.codeOffer": "Haben Sie einen Prioritätscode?",
  "wait.codeLabel": "Prioritätscode",
  "wait.codeUse": "Code verwenden",
  "wait.inLane": "Prioritätsreihe: {lane}",
  "wait.lineProgress": "Fortschritt in der Warteschlange",
  "wait.eta": "Geschätzte Wartezeit: {wait}",
  "time.unknown": "unbekannt",
  "time.underMinute": "weniger als eine Minute",
  "time.about": "etwa {duration}",
  "time.overDay": "mehr als ein Tag",
  "time.under": "weniger als {value}",
  "notify.title": "Sie sind dran",
  "resume.offer": "Auf einem anderen Gerät weitermachen",
  "resume.offerHint":
    "Öffnen Sie diesen Warteraum auf Ihrem Handy oder einem anderen Computer und behalten Sie Ihren Platz.",
  "resume.showCode": "Code anzeigen",
  "resume.codeLabel": "Ihr Code",
  "resume.codeHint":
    "Scannen Sie auf dem anderen Gerät den QR-Code, öffnen Sie den Link oder geben Sie den Code auf der Seite dieses Warteraums unter „{offer}“ ein. Der Code gilt einmal; Ihr Platz wechselt dann dorthin.",
  "resume.link": "Link: {link}",
  "resume.copyLink": "Link kopieren",
  "resume.copied": "Kopiert",
  "resume.qrLabel": "QR-Code, der Ihren Platz auf einem anderen Gerät öffnet",
  "resume.moved":
    "Ihr Platz ist auf ein anderes Gerät umgezogen. Um ihn zurückzuholen, geben Sie einen dort angezeigten Code ein.",
  "resume.haveCode": "Haben Sie einen Code von einem anderen Gerät?",
  "resume.enterCode": "Code eingeben",
  "resume.takePlace": "Hier weitermachen",
  "resume.confirmMove":
    "Ihren Platz in der Warteschlange auf dieses Gerät holen? Das andere Gerät verliert ihn dann.",
  "resume.badCode":
    "Dieser Code funktioniert nicht: Er ist falsch eingegeben, wurde schon verwendet oder sein Platz ist abgelaufen.",
  "resume.tooMany":
    "Zu viele falsche Codes. Warten Sie ein paar Minuten und versuchen Sie es dann erneut.",
  "resume.mailOffer": "Per E-Mail benachrichtigen, wenn ich dran bin",
  "resume.mailLabel": "Ihre E-Mail-Adresse",
  "resume.mailSave": "E-Mail anfordern",
  "resume.mailSaved":
    "Wir schreiben Ihnen eine E-Mail, wenn Sie dran sind. Die Adresse wird gelöscht, sobald die E-Mail verschickt ist oder Ihr Platz endet.",
  "resume.mailBad": "Das sieht nicht nach einer E-Mail-Adresse aus.",
  "resume.mailError":
    "Die Adresse konnte gerade nicht gespeichert werden. Versuchen Sie es gleich noch einmal.",
  "resume.mailCancel": "Keine E-Mail schicken",
  "resume.holdWarning":
    "Ihr reservierter Platz läuft bald ab. Brauchen Sie mehr Zeit? Drücken Sie „{button}“.",
  "resume.moreTime": "Ich brauche mehr Zeit",
  "resume.moreTimeAdded": "Mehr Zeit hinzugefügt.",
  "resume.noMoreTime": "Es kann keine weitere Zeit hinzugefügt werden.",
  "mail.subjectTurn": "Sie sind dran: {title}",
  "mail.subjectNear": "Bald sind Sie dran: {title}",
  "mail.leadTurn": "Sie sind dran: Sie können jetzt eintreten.",
  "mail.leadNear": "Sie sind unter den ersten {count} in der Warteschlange.",
  "mail.linkIntro":
    "Öffnen Sie diesen Link auf diesem Gerät, um im Warteraum weiterzumachen (Ihr Platz wechselt hierher):",
  "mail.code": "Oder geben Sie diesen Code auf der Seite des Warteraums ein: {code}",
  "mail.ignore": "Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie ignorieren.",
  "check.title": "Einen Moment — {title}",
  "check.noscript":
    "Bevor Sie sich anstellen, prüft diese Seite, dass Sie ein Mensch und kein Skript sind. Die Prüfung braucht JavaScript: Bitte schalten Sie es ein und laden Sie die Seite neu.",
  "check.checking": "Wir prüfen, dass Sie ein Mensch und kein Skript sind …",
  "check.progress":
    "Wir prüfen, dass Sie ein Mensch und kein Skript sind … etwa {percent} erledigt.",
  "check.done": "Prüfung abgeschlossen. Sie werden angestellt …",
  "check.doneResume": "Prüfung abgeschlossen. Ihr Platz wird hierher verschoben …",
  "check.again": "Noch eine Prüfung …",
  "check.failed":
    "Die Prüfung hat nicht geklappt ({reason}). Laden Sie die Seite neu, um es noch einmal zu versuchen.",
  "check.reload": "Neu laden",
  "check.progressLabel": "Fortschritt der Prüfung",
  "check.errCookies":
    "der Browser speichert das Cookie des Warteraums in diesem Rahmen nicht; öffnen Sie den Warteraum in einem eigenen Fenster",
  "check.errWidget": "die Turnstile-Prüfung konnte nicht geladen werden",
  "check.errStatus": "der Warteraum antwortete mit {status}",
  "notice.badRequest": "Ungültige Anfrage",
  "notice.badQueueLink": "Der Name der Warteschlange in diesem Link ist ungültig.",
  "notice.badQueueForm": "Der Name der Warteschlange in diesem Formular ist ungültig.",
  "notice.denied": "Zugriff verweigert",
  "notice.deniedText": "Sie können diesem Warteraum nicht beitreten.",
  "notice.badLink": "Mit diesem Link stimmt etwas nicht",
  "notice.badLinkText":
    "Dieser Link zum Warteraum kann nicht verwendet werden. Gehen Sie zurück zur Website und folgen Sie ihrem Link erneut.",
  "notice.moment": "Bitte einen Moment Geduld",
  "notice.momentText":
    "Der Warteraum konnte gerade nicht antworten. Diese Seite versucht es in {seconds} von selbst noch einmal.",
  "notice.geo": "In Ihrem Land nicht verfügbar",
  "notice.geoText": "Dieser Warteraum ist in Ihrem Land nicht verfügbar.",
  "notice.code": "Dieser Prioritätscode kann nicht verwendet werden",
  "notice.codeText":
    "Er gilt nicht für diese Warteschlange, ist abgelaufen oder wurde bereits verbraucht. Sie können sich auch ohne ihn anstellen.",
  "notice.notFound": "Nicht gefunden",
  "notice.visitEnded": "Ihr Besuch ist beendet",
  "notice.visitEndedText":
    "Danke für Ihren Besuch: Die Website hat ihn beendet. Um wieder hineinzukommen, stellen Sie sich erneut in die Warteschlange (hinten an).",
  "notice.notFoundText": "Hier gibt es keinen Warteraum.",
  "notice.notOpen": "Noch nicht geöffnet",
  "notice.notOpenText":
    "Dieser Warteraum ist noch nicht geöffnet. Diese Seite prüft jede Minute von selbst erneut.",
  "notice.rate": "Zu viele neue Plätze aus Ihrem Netzwerk",
  "notice.rateText":
    "Viele Personen in Ihrem Netzwerk sind diesem Warteraum in der letzten Minute beigetreten. Diese Seite versucht es in {seconds} von selbst noch einmal.",
  "notice.closed": "Gerade geschlossen",
  "notice.closedText":
    "Dieser Warteraum ist gerade geschlossen. Bitte kommen Sie später wieder; diese Seite prüft von selbst erneut.",
  "notice.full": "Der Warteraum ist voll",
  "notice.fullText":
    "Gerade warten zu viele Personen. Diese Seite versucht es in {seconds} von selbst noch einmal.",
  "enqueue.unavailable": "Gerade nicht verfügbar",
  "enqueue.unavailableText": "Dieser Warteraum kann seine Links gerade nicht prüfen.",
  "enqueue.useLink": "Bitte nutzen Sie den Link der Website",
  "enqueue.required":
    "Diesem Warteraum tritt man über einen persönlichen Link der Website bei, die Sie hierher geschickt hat. Gehen Sie zurück zur Website und folgen Sie ihrem Link zur Warteschlange.",
  "enqueue.invalid":
    "Der Link, der Sie hierher gebracht hat, ist ungültig (vielleicht abgelaufen). Gehen Sie zurück zur Website und folgen Sie ihrem Link zur Warteschlange erneut.",
  "how.title": "So funktioniert dieser Warteraum",
  "how.intro":
    "Wenn mehr Menschen kommen, als die Website gleichzeitig bedienen kann, erhalten Sie einen Platz in der Warteschlange statt einer Fehlerseite. Die Website lässt Menschen in gleichmäßigem Tempo herein.",
  "how.keepOpen":
    "Lassen Sie die Warteseite offen: Sie meldet sich von selbst und geht weiter, wenn Sie dran sind. Wer sie länger schließt, gibt seinen Platz auf.",
  "how.reload":
    "Neu laden oder erneut öffnen behält Ihren Platz (ein Cookie merkt ihn sich); ein neuer Platz würde Sie nur ans Ende stellen.",
  "how.random":
    "Manche Verkäufe losen zufällig aus, statt der Reihe nach einzulassen; die Seite sagt, was gilt.",
  "how.turn":
    "Wenn Sie dran sind, werden Sie zur Website weitergeleitet. Wenn die Seite Sie um eine Bestätigung bittet, bestätigen Sie innerhalb der angezeigten Zeit, sonst geht der Platz an die nächste Person.",
  "how.privacy":
    "Gespeichert wird nur, was die Warteschlange braucht: eine zufällige Kennung in einem Cookie sowie Ihre Adresse und Ihr Land, um Plätze fair zu verteilen und Missbrauch abzuwehren.",
  "how.back": "Zurück zur Warteschlange kommen Sie mit der Zurück-Taste Ihres Browsers.",
  "draw.title": "Eine Eröffnungsziehung prüfen",
  "draw.intro":
    "Diese Seite berechnet die Ziehung der Warteschlange {queue} in Ihrem Browser nach: Der Startwert muss den Hash haben, der bei Öffnung der Vorwarteschlange veröffentlicht wurde, die Liste muss den veröffentlichten Listen-Hash haben, und die Reihenfolge muss aus Startwert und Liste folgen. Nichts hier vertraut der Antwort des Servers.",
  "draw.fetch": "Die veröffentlichte Ziehung prüfen",
  "draw.paste": "Oder einen gespeicherten Datensatz einfügen",
  "draw.recordLabel": "Datensatz der Ziehung (JSON)",
  "draw.checkRecord": "Diesen Datensatz prüfen",
  "draw.arrivalLabel": "Ihre Ankunftsnummer",
  "draw.noscript": "Diese Prüfung läuft im Browser: Sie braucht JavaScript.",
  "draw.checking": "Wird geprüft …",
  "draw.ok": "Die Ziehung stimmt: {count} in der Liste, Reihenfolge nachgerechnet.",
  "draw.bad": "Die Ziehung stimmt NICHT (siehe unten).",
  "draw.notInList": "Die Ankunftsnummer {arrival} ist nicht in der Liste.",
  "draw.placed": "Die Ankunftsnummer {arrival} wurde auf Platz {place} von {total} gezogen.",
  "draw.serverSaid": "Der Server antwortete mit {status}.",
  "draw.fetchFailed": "Der Datensatz der Ziehung konnte nicht abgerufen werden.",
  "draw.notJson": "Das ist kein Datensatz einer Ziehung im JSON-Format.",
  "gateway.title": "Vorübergehend nicht erreichbar",
  "gateway.heading": "Diese Website ist gerade nicht erreichbar",
  "gateway.text": "Ihr Zugang bleibt gültig: Bitte versuchen Sie es gleich noch einmal.",
  "gateway.retry": "Erneut versuchen",
  "draw.lineScheme": "Verfahren ist {scheme} (Datensatz sagt {said})",
  "draw.lineNotDone":
    "der Datensatz hat noch keinen Startwert, keine Liste und keine Reihenfolge: die Ziehung ist noch nicht erfolgt",
  "draw.lineSeed": "der Startwert besteht aus 32 Bytes in Kleinbuchstaben-Hex",
  "draw.lineCommitment":
    "SHA-256(Startwert) entspricht der Festlegung {commitment}, veröffentlicht am {at}",
  "draw.lineList": "SHA-256 der Liste mit {count} Ankunftsnummern ist listHash",
  "draw.lineCount": "count entspricht der Länge der Liste",
  "draw.lineOrder":
    "die aus Startwert und Liste nachgerechnete Reihenfolge entspricht der veröffentlichten",
};
