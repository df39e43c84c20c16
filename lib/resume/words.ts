/**
 * VISITOR-FACING WORDS of moving a place to another device and of the e-mail at the turn, kept
 * together in this one file so the wait page's translations (issue 34) can take them into their
 * catalogue at once. English only; nothing else in lib/resume/ or lib/notify/ shows a visitor text.
 */

/** The wait page's "continue on another device" panel, the e-mail offer, the hold's extension. */
export const RESUME_WORDS = {
  offer: "Continue on another device",
  offerHint: "Open this waiting room on your phone or another computer and keep your place.",
  showCode: "Show a code",
  codeLabel: "Your code",
  codeHint: "On the other device, scan the QR code, open the link, or enter the code under " +
    '"Continue on another device" on this waiting room\'s page. The code works once; your ' +
    "place then moves there.",
  linkLabel: "Link",
  copyLink: "Copy link",
  copied: "Copied",
  qrLabel: "QR code that opens your place on another device",
  moved: "Your place moved to another device. To take it back, enter a code shown there.",
  haveCode: "Have a code from another device?",
  enterCode: "Enter the code",
  takePlace: "Continue here",
  confirmMove: "Move your place in line to this device? The other device will lose it.",
  moving: "Moving your place…",
  badCode: "That code does not work: it is mistyped, was used already, or its place has ended.",
  tooMany: "Too many wrong codes. Wait a few minutes and try again.",
  mailOffer: "E-mail me when it's my turn",
  mailLabel: "Your e-mail address",
  mailSave: "E-mail me",
  mailSaved: "We'll e-mail you when it's your turn. The address is deleted once the e-mail is " +
    "sent or your place ends.",
  mailBad: "That does not look like an e-mail address.",
  mailError: "The address could not be saved just now. Try again in a moment.",
  mailCancel: "Don't e-mail me",
  holdWarning: 'Your held place ends soon. Need more time? Press "I need more time".',
  moreTime: "I need more time",
  moreTimeAdded: "More time added.",
  noMoreTime: "No more time can be added.",
} as const;

/** The e-mail sent at the visitor's turn (or when it is near the front). */
export function turnMail(p: { title: string; link: string; code: string; near: number }) {
  const subject = p.near > 0 ? `Almost your turn: ${p.title}` : `It's your turn: ${p.title}`;
  const lead = p.near > 0
    ? `You are among the first ${p.near} in line.`
    : "It's your turn: you can go in now.";
  const text = [
    lead,
    "",
    "Open this link on this device to continue in the waiting room (your place moves here):",
    p.link,
    "",
    `Or enter this code on the waiting room's page: ${p.code}`,
    "",
    "If you did not ask for this e-mail, you can ignore it.",
  ].join("\n");
  return { subject, text };
}
