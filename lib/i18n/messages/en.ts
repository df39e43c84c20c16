/**
 * English: the reference catalogue. Every other catalogue has exactly these keys (a test and the
 * type system both check it). `{name}` marks a value put in at render time; numbers and
 * durations arrive already formatted for the language.
 */
export const en = {
  "doc.footer": "Waiting room by Tollgate",
  "doc.how": "How it works",
  "doc.language": "Language",
  "doc.languageNow": "Language: {name}",
  "page.title": "You're in line",
  "page.message": "Thanks for your patience. We'll let you in as soon as there's room.",
  "page.turnTitle": "✅ It's your turn — {title}",
  "page.previewTitle": "Preview — {title}",
  "page.moveTitle": "Move your place here? — {title}",
  "page.movedTitle": "Your place moved — {title}",
  "page.endedTitle": "Your place ended — {title}",
  "live.expired": "Your turn has passed: the place was held for you, but not entered in time.",
  "live.ended":
    "Your place in line has ended: you left, it was dropped after missed check-ins, or your turn passed.",
  "live.full": "The waiting room is full right now. This page tries again by itself in a moment.",
  "live.closed": "This waiting room is not available.",
  "live.cookies":
    "This page cannot keep your place here, because the browser does not keep the waiting room's cookie in this frame. Open the waiting room in its own window to wait.",
  "live.hold": "It's your turn! Your place is held for {time}: press Enter now.",
  "live.admitted": "It's your turn! Taking you in…",
  "live.prequeue": "You are in the pre-queue. This page checks for you and moves on by itself.",
  "live.lottery": "You are in the lottery. This page checks for you and moves on by itself.",
  "live.position":
    "You are number {position} in line. This page checks for you and moves on by itself.",
  "live.positionOf":
    "You are number {position} of {waiting} in line. This page checks for you and moves on by itself.",
  "live.positionAbout":
    "You are about number {position} in line. This page checks for you and moves on by itself.",
  "wait.joinAgain": "Join the line again",
  "wait.ownWindow": "Open the waiting room in its own window",
  "wait.enterNow": "Enter now",
  "wait.continue": "Continue",
  "wait.heldFor": "Your place is held for {countdown}.",
  "wait.notifyMe": "Notify me",
  "wait.notifyOn": "We'll notify you when it's your turn.",
  "wait.notifyBlocked":
    "Notifications are blocked for this site, so we can't notify you. Keep this page open: it moves on by itself.",
  "wait.arrivalWas": "Your pre-queue arrival number was #{arrival}.",
  "wait.checkDraw": "Check the opening draw",
  "wait.howYouGetIn": "How you get in",
  "wait.prequeueWords":
    "At the opening, everyone in the pre-queue gets a random place in line, ahead of everyone who arrives later. When you joined the pre-queue makes no difference.",
  "wait.lotteryWords":
    "Each time a place opens, a random draw picks who goes in among everyone waiting at that moment. There is no place in line: arriving earlier or later makes no difference.",
  "wait.arrivalNumber":
    "Your arrival number: #{arrival} (keep it to find your place in the published draw)",
  "wait.commitment":
    "The draw's secret was fixed before anyone joined; its fingerprint is {fingerprint}.",
  "wait.howToCheck": "How to check the draw",
  "wait.openingProgress": "Waiting for the opening draw",
  "wait.prequeueEta": "Expected wait after the opening, for a random place: {wait}",
  "wait.odds": "{waiting} waiting · your chance at the next draw: {chance}",
  "wait.drawProgress": "Waiting for the draw",
  "wait.lotteryEta":
    "At the current pace, half of those waiting now get in within {half}, nine in ten within {most}.",
  "wait.placeLabel": "Your place in line",
  "wait.place": "#{position}",
  "wait.placeOf": "#{position} of {waiting}",
  "wait.placeAbout": "About #{position}",
  "wait.codeOffer": "Have a priority code?",
  "wait.codeLabel": "Priority code",
  "wait.codeUse": "Use code",
  "wait.inLane": "Priority line: {lane}",
  "wait.lineProgress": "Progress through the line",
  "wait.eta": "Estimated wait: {wait}",
  "time.unknown": "unknown",
  "time.underMinute": "less than a minute",
  "time.about": "about {duration}",
  "time.overDay": "more than a day",
  "time.under": "less than {value}",
  "notify.title": "It's your turn",
  "resume.offer": "Continue on another device",
  "resume.offerHint":
    "Open this waiting room on your phone or another computer and keep your place.",
  "resume.showCode": "Show a code",
  "resume.codeLabel": "Your code",
  "resume.codeHint":
    'On the other device, scan the QR code, open the link, or enter the code under "{offer}" on this waiting room\'s page. The code works once; your place then moves there.',
  "resume.link": "Link: {link}",
  "resume.copyLink": "Copy link",
  "resume.copied": "Copied",
  "resume.qrLabel": "QR code that opens your place on another device",
  "resume.moved": "Your place moved to another device. To take it back, enter a code shown there.",
  "resume.haveCode": "Have a code from another device?",
  "resume.enterCode": "Enter the code",
  "resume.takePlace": "Continue here",
  "resume.confirmMove": "Move your place in line to this device? The other device will lose it.",
  "resume.badCode":
    "That code does not work: it is mistyped, was used already, or its place has ended.",
  "resume.tooMany": "Too many wrong codes. Wait a few minutes and try again.",
  "resume.mailOffer": "E-mail me when it's my turn",
  "resume.mailLabel": "Your e-mail address",
  "resume.mailSave": "E-mail me",
  "resume.mailSaved":
    "We'll e-mail you when it's your turn. The address is deleted once the e-mail is sent or your place ends.",
  "resume.mailBad": "That does not look like an e-mail address.",
  "resume.mailError": "The address could not be saved just now. Try again in a moment.",
  "resume.mailCancel": "Don't e-mail me",
  "resume.holdWarning": 'Your held place ends soon. Need more time? Press "{button}".',
  "resume.moreTime": "I need more time",
  "resume.moreTimeAdded": "More time added.",
  "resume.noMoreTime": "No more time can be added.",
  "mail.subjectTurn": "It's your turn: {title}",
  "mail.subjectNear": "Almost your turn: {title}",
  "mail.leadTurn": "It's your turn: you can go in now.",
  "mail.leadNear": "You are among the first {count} in line.",
  "mail.linkIntro":
    "Open this link on this device to continue in the waiting room (your place moves here):",
  "mail.code": "Or enter this code on the waiting room's page: {code}",
  "mail.ignore": "If you did not ask for this e-mail, you can ignore it.",
  "check.title": "One moment — {title}",
  "check.noscript":
    "Before you join the line, this page checks that you are a person and not a script. The check needs JavaScript: please turn it on and reload this page.",
  "check.checking": "Checking that you are a person, not a script…",
  "check.progress": "Checking that you are a person, not a script… about {percent} done.",
  "check.done": "Check done. Joining the line…",
  "check.doneResume": "Check done. Moving your place here…",
  "check.again": "One more check…",
  "check.failed": "The check did not work ({reason}). Reload the page to try again.",
  "check.reload": "Reload",
  "check.progressLabel": "Check progress",
  "check.errCookies":
    "the browser does not keep the waiting room's cookie in this frame; open the waiting room in its own window",
  "check.errWidget": "the Turnstile check could not be loaded",
  "check.errStatus": "the waiting room answered {status}",
  "notice.badRequest": "Bad request",
  "notice.badQueueLink": "The queue name in this link is not valid.",
  "notice.badQueueForm": "The queue name in this form is not valid.",
  "notice.denied": "Access denied",
  "notice.deniedText": "You cannot join this waiting room.",
  "notice.badLink": "Something is wrong with this link",
  "notice.badLinkText":
    "This link to the waiting room cannot be used. Go back to the site and follow its link again.",
  "notice.moment": "Please wait a moment",
  "notice.momentText":
    "The waiting room could not answer just now. This page tries again by itself in {seconds}.",
  "notice.geo": "Not available in your country",
  "notice.geoText": "This waiting room is not available in your country.",
  "notice.code": "This priority code can't be used",
  "notice.codeText":
    "It is not valid for this line, has expired, or was used up. You can still join the line without it.",
  "notice.notFound": "Not found",
  "notice.visitEnded": "Your visit has ended",
  "notice.visitEndedText":
    "Thank you for your visit: the site has ended it. To go in again, join the line again (at the back).",
  "notice.notFoundText": "There is no waiting room here.",
  "notice.notOpen": "Not open yet",
  "notice.notOpenText":
    "This waiting room is not open yet. This page checks again by itself every minute.",
  "notice.rate": "Too many new places from your network",
  "notice.rateText":
    "Many people on your network joined this waiting room in the last minute. This page tries again by itself in {seconds}.",
  "notice.closed": "Closed right now",
  "notice.closedText":
    "This waiting room is closed right now. Please come back later; this page checks again by itself.",
  "notice.full": "The waiting room is full",
  "notice.fullText":
    "Too many people are waiting right now. This page tries again by itself in {seconds}.",
  "enqueue.unavailable": "Not available right now",
  "enqueue.unavailableText": "This waiting room cannot check its links right now.",
  "enqueue.useLink": "Please use the link from the site",
  "enqueue.required":
    "This waiting room is joined through a personal link from the site that sent you here. Go back to the site and follow its link to the line.",
  "enqueue.invalid":
    "The link that brought you here is not valid (it may have expired). Go back to the site and follow its link to the line again.",
  "how.title": "How this waiting room works",
  "how.intro":
    "When more people arrive than the site can serve at once, you get a place in line instead of an error page. The site lets people in at a steady pace.",
  "how.keepOpen":
    "Keep the waiting page open: it checks in by itself and moves on when it is your turn. Closing it for long gives your place up.",
  "how.reload":
    "Reloading or opening the page again keeps your place (a cookie remembers it); a new place would only put you at the back.",
  "how.random":
    "Some sales draw people at random instead of first come, first served; the page says which.",
  "how.turn":
    "When it is your turn you are taken to the site. If the page asks you to confirm, do so within the time shown, or the place goes to the next person.",
  "how.privacy":
    "Only what the line needs is kept: a random id in a cookie, and your address and country to share places fairly and keep abuse out.",
  "how.back": "To go back to the line, use your browser's Back button.",
  "draw.title": "Check an opening draw",
  "draw.intro":
    "This page recomputes the draw of queue {queue} in your browser: the seed must hash to the commitment published when the pre-queue opened, the list must hash to the published list hash, and the order must follow from the seed and the list. Nothing here trusts the server's own answer.",
  "draw.fetch": "Check the published draw",
  "draw.paste": "Or paste a record you saved",
  "draw.recordLabel": "Draw record (JSON)",
  "draw.checkRecord": "Check this record",
  "draw.arrivalLabel": "Your arrival number",
  "draw.noscript": "This check runs in the browser: it needs JavaScript.",
  "draw.checking": "Checking…",
  "draw.ok": "The draw checks out: {count} in the list, order recomputed.",
  "draw.bad": "The draw does NOT check out (see below).",
  "draw.notInList": "Arrival number {arrival} is not in the list.",
  "draw.placed": "Arrival number {arrival} was drawn to place {place} of {total}.",
  "draw.serverSaid": "The server answered {status}.",
  "draw.fetchFailed": "The draw record could not be fetched.",
  "draw.notJson": "That is not a JSON draw record.",
  "gateway.title": "Temporarily unavailable",
  "gateway.heading": "This site is not reachable right now",
  "gateway.text": "Your access stays valid: please try again in a moment.",
  "gateway.retry": "Try again",
  "draw.lineScheme": "scheme is {scheme} (record says {said})",
  "draw.lineNotDone": "the record has no seed, list and order yet: the draw is not done",
  "draw.lineSeed": "the seed is 32 bytes of lowercase hex",
  "draw.lineCommitment": "SHA-256(seed) equals the commitment {commitment} published at {at}",
  "draw.lineList": "SHA-256 of the list of {count} arrival numbers is listHash",
  "draw.lineCount": "count matches the list's length",
  "draw.lineOrder": "the order recomputed from the seed and the list equals the published order",
} as const;

/** A message's key. */
export type MessageKey = keyof typeof en;

/** One language's catalogue: a text for every key English has. */
export type Catalogue = Record<MessageKey, string>;
