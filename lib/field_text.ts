/**
 * One mapping from the API's `details.fields` to the operator's words: a name per field and a
 * sentence per field and rule ("At least 0.1 a second", "Use lowercase letters, digits, - and _;
 * …"). The admin app (every form) and the `/cost` page both word their errors here, so no
 * validator text, pattern or field key ever reaches a person. Pure data and functions: bundled
 * into the admin app and used by the server's pages alike.
 */

/** The rule a failing field broke, as the validation hook sends it (`details.fields[].rule`). */
export interface FieldRule {
  code: string;
  origin?: string;
  minimum?: number;
  maximum?: number;
  inclusive?: boolean;
  format?: string;
  expected?: string;
  missing?: boolean;
  values?: string[];
  params?: Record<string, unknown>;
}

/** One failing field of a 400 `bad_request`. */
export interface FieldProblem {
  path: string;
  message: string;
  rule?: FieldRule;
}

/** How one field is spoken of. */
interface Words {
  /** Its name as the forms label it. */
  label: string;
  /** A number with its unit ("0.1 a second"). */
  unit?: (n: string) => string;
  /** A whole number only. */
  whole?: boolean;
  /** What a value of the wrong form should be instead. */
  format?: string;
  /** Said when it is empty. */
  empty?: string;
  /** Its own sentences for rules that need more than bounds (by rule code or params). */
  custom?: (r: FieldRule) => string | undefined;
  /** Its own sentence for a service's message (a domain check) worded for an API client. */
  reword?: (message: string) => string | undefined;
}

/** "{n} visitors", and "1 visitor". */
const per = (what: string) => (n: string) => `${n} ${n === "1" ? what.replace(/s\b/, "") : what}`;
const LINK = "Leave it empty, or use a path on this site (starting with /) or an https:// address";
const QUEUE_NAME =
  "Use lowercase letters, digits, - and _; start with a letter or digit; at most " +
  "64 characters";
const USERNAME = "Use 3 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit";
const HOST = "Use a hostname such as www.example.com (no https://, no path)";
const HTTPS = "Use a full https:// address";
const SHARE = "Use a share above 0% and below 100%, or make the lane strict";

/** Every field a form or `/cost` sends, by its API key (the last part of a path). */
const FIELDS: Record<string, Words> = {
  // Queues and admission.
  name: { label: "Queue name", format: QUEUE_NAME, empty: "Give the queue a name" },
  queue: { label: "Queue", format: QUEUE_NAME },
  admitPerSecond: { label: "Admit per second", unit: per("a second") },
  capacity: { label: "Capacity", unit: per("visitors at once"), whole: true },
  maxWaitingVisitors: { label: "Waiting-row cap", unit: per("visitors waiting"), whole: true },
  previousMaxWaitingVisitors: { label: "Waiting-row cap before the change", whole: true },
  mode: { label: "Admission mode" },
  opensAt: {
    label: "Opening time",
    custom: (r) => r.code === "custom" ? "Pick a time in the future" : undefined,
  },
  windowMinutes: { label: "Pre-queue window", unit: per("minutes"), whole: true },
  count: { label: "How many to let in", unit: per("visitors"), whole: true },
  // Join guards and limits.
  difficulty: { label: "Puzzle difficulty", whole: true },
  autoJoinsPerMinute: { label: "Joins a minute that turn the check on", whole: true },
  autoWaiting: { label: "Waiting visitors that turn the check on", whole: true },
  joinsPerClientPerMinute: { label: "Joins per visitor a minute", whole: true },
  returnGraceSeconds: {
    label: "Place kept for a quiet visitor",
    unit: per("seconds"),
    whole: true,
  },
  shadowOverLimitFactor: { label: "Flooding factor for the shadow line", whole: true },
  // The room switch's Safety Net.
  joinsPerMinuteHigh: { label: "Joins per minute: start at", whole: true },
  joinsPerMinuteLow: { label: "Joins per minute: stop below", whole: true },
  holdingHigh: { label: "Slots held: start at", whole: true },
  holdingLow: { label: "Slots held: stop below", whole: true },
  calmMinutes: { label: "Calm minutes", unit: per("minutes"), whole: true },
  provider: { label: "Bot check" },
  // Priority lanes and codes (a lane's fields by their parent: "name" alone is a queue's).
  lanes: { label: "Lanes" },
  "lanes.name": {
    label: "Lane name",
    format: "Use lowercase letters, digits, - and _; start with a letter or digit; at most " +
      "32 characters",
  },
  "lanes.share": {
    label: "Share",
    custom: (r) => r.code === "invalid_type" ? undefined : SHARE,
    reword: (m) => /between 0 and 1/.test(m) ? SHARE : undefined,
  },
  "lanes.strict": { label: "Strict" },
  lane: { label: "Lane" },
  maxUses: { label: "Uses per code", unit: per("uses"), whole: true },
  expiresAt: { label: "Expiry" },
  label: { label: "Label" },
  challenge: { label: "When to ask for the check" },
  // Branding.
  title: { label: "Title" },
  message: { label: "Message" },
  logoUrl: { label: "Logo address", format: LINK },
  redirectUrl: { label: "Where admitted visitors go", format: LINK + " (not /wait)" },
  primaryColor: { label: "Accent colour", format: "Use a colour like #2563eb or #fff" },
  backgroundColor: { label: "Background colour", format: "Use a colour like #ffffff or #fff" },
  admitHoldSeconds: {
    label: "Time to click Enter",
    unit: per("seconds"),
    whole: true,
    empty: "Enter a number of seconds",
  },
  // Access.
  allowlistText: { label: "Allowlist" },
  countriesText: {
    label: "Blocked countries",
    custom: (r) => r.code === "custom" ? "Add at least one country code" : undefined,
  },
  ttlHours: { label: "Block lasts", unit: per("hours"), whole: true },
  intervalSeconds: { label: "Check every", unit: per("seconds"), whole: true },
  timeoutMs: { label: "Timeout", unit: per("milliseconds"), whole: true },
  failures: { label: "Failures before down", whole: true },
  recoveries: { label: "Successes before up", whole: true },
  url: { label: "Address", format: HTTPS },
  depthThreshold: { label: "Line length that alerts", unit: per("visitors"), whole: true },
  secret: { label: "Signing secret" },
  // Edge and bot check.
  token: { label: "API token", format: "Paste the whole Cloudflare API token" },
  zone: { label: "Zone", format: HOST },
  hostname: { label: "Hostname", format: HOST },
  domain: { label: "Domain", format: HOST },
  domains: { label: "Hostnames", format: HOST },
  // Accounts.
  username: { label: "Username", format: USERNAME, empty: "Enter a username" },
  password: { label: "Password", empty: "Enter a password" },
  currentPassword: { label: "Current password", empty: "Enter your current password" },
  newPassword: { label: "New password" },
  confirmPassword: { label: "Repeat the new password" },
  recoveryPhrase: { label: "Recovery phrase", empty: "Enter your recovery phrase" },
  // Not an API body field: the wizard's bearer secret, worded by the field like the rest.
  setupSecret: { label: "Setup secret" },
  // Switches, choices and steps (a form sets these itself; said when an API call gets one wrong).
  enabled: { label: "On or off" },
  paused: { label: "Paused" },
  published: { label: "Published" },
  showWaitingCount: { label: "Show how many people are waiting" },
  clickToEnter: { label: "Click to enter" },
  confirmChanges: { label: "Confirmation of the change" },
  events: { label: "Events" },
  override: { label: "Manual override" },
  renew: { label: "Renew" },
  skip: { label: "Skip" },
  step: { label: "Setup step" },
  target: { label: "Origin address", format: "Use an IP address or a hostname" },
  response: { label: "Bot check answer" },
  challengeResponse: { label: "Bot check answer" },
  solution: { label: "Puzzle answer" },
  acceptedTosVersion: { label: "Terms of service" },
  force: { label: "Force" },
  // The cost calculator.
  visitors: { label: "Visitors", unit: per("visitors"), whole: true },
  averageWaitSeconds: { label: "Average wait", unit: per("seconds"), whole: true },
  pollingMode: { label: "Polling" },
  pollIntervalSeconds: {
    label: "Check-in every",
    unit: per("seconds"),
    whole: true,
    custom: (r) => {
      const min = r.params?.minSeconds, max = r.params?.maxSeconds;
      if (typeof min === "number") {
        return `At least ${min} seconds for this many visitors: adaptive check-ins stay within ` +
          "750 a second";
      }
      if (typeof max === "number") return `At most ${max} seconds with fixed polling`;
    },
  },
  heartbeatIntervalSeconds: { label: "Heartbeat every", unit: per("seconds"), whole: true },
};

const n = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 6 });

/**
 * The words of the field at `path` ("admitPerSecond", "lanes.0.name"): by its last part and the
 * one before ("lanes.name"), else by its last part alone ("proof.nonce" as "nonce").
 */
function wordsOf(path: string): Words | undefined {
  const parts = path.split(".").filter((s) => !/^\d+$/.test(s));
  const pair = parts.slice(-2).join(".");
  if (parts.length > 1 && Object.hasOwn(FIELDS, pair)) return FIELDS[pair];
  const key = parts.pop() ?? "";
  return Object.hasOwn(FIELDS, key) ? FIELDS[key] : undefined;
}

/** The name of the field at `path` as people read it ("Admit per second"). */
export function fieldLabel(path: string): string {
  return wordsOf(path)?.label ?? spelledOut(path);
}

/** A field without words of its own, by its last part spelled out ("upperJoins" -> "Upper joins"). */
function spelledOut(path: string): string {
  const key = path.split(".").filter((s) => !/^\d+$/.test(s)).pop() ?? "";
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();
  return /^[a-z][a-z0-9 ]*$/.test(words) ? words[0].toUpperCase() + words.slice(1) : "This value";
}

/** Field keys (camelCase API names), patterns and validator words that never reach a person. */
const NOT_FOR_PEOPLE = [
  /expected/i,
  /[\^$][\[(a-z]|\[[a-z0-9]-|\{\d+,\d*\}|\\[dws]/,
  /\b[a-z]+[A-Z][A-Za-z]*\b/,
  /\binvalid input\b/i,
  /\b(too (big|small)|nan|null|undefined|received)\b/i,
];

/** Whether `text` is fit to show a person (no pattern, field key or validator wording). */
export function plainEnough(text: string): boolean {
  return !NOT_FOR_PEOPLE.some((re) => re.test(text));
}

/** A sentence with its first letter up and one full stop. */
function sentence(s: string): string {
  const t = s.trim().replace(/[.\s]+$/, "");
  return t.charAt(0).toUpperCase() + t.slice(1) + ".";
}

/** The sentence a rule calls for, from the field's words (undefined: nothing specific). */
function ruleText(w: Words | undefined, r: FieldRule): string | undefined {
  const own = w?.custom?.(r);
  if (own) return own;
  const unit = (v: number) => w?.unit ? w.unit(n(v)) : n(v);
  const text = r.origin === "string";
  const list = r.origin === "array" || r.origin === "set";
  switch (r.code) {
    case "too_small":
      if (r.minimum === undefined) break;
      if (text) {
        return r.minimum <= 1 ? (w?.empty ?? "Fill this in") : `At least ${r.minimum} characters`;
      }
      if (list) return r.minimum <= 1 ? "Add at least one" : `At least ${r.minimum} entries`;
      return r.inclusive === false ? `More than ${unit(r.minimum)}` : `At least ${unit(r.minimum)}`;
    case "too_big":
      if (r.maximum === undefined) break;
      if (text) return `At most ${n(r.maximum)} characters`;
      if (list) return `At most ${n(r.maximum)} entries`;
      return r.inclusive === false ? `Less than ${unit(r.maximum)}` : `At most ${unit(r.maximum)}`;
    case "invalid_type":
      if (r.missing) return w?.empty ?? "Fill this in";
      if (r.expected === "number" || r.expected === "int") {
        return w?.whole || r.expected === "int" ? "Enter a whole number" : "Enter a number";
      }
      if (r.expected === "boolean") return "Choose yes or no";
      if (r.expected === "string") return w?.format ?? "Enter text";
      break;
    case "invalid_format":
      if (w?.format) return w.format;
      if (w?.whole) return "Enter a whole number (digits only)";
      return r.format === "url" ? HTTPS : "This is not in a form that works here";
    case "invalid_value":
      return "Choose one of the options offered";
    case "not_multiple_of":
      return w?.whole ? "Enter a whole number" : "Use fewer decimals";
    case "unrecognized_keys":
      return "Remove the settings this form does not know";
    case "custom":
      // A refinement (a link, a colour): the field's own description of a good value.
      return w?.format;
  }
  return undefined;
}

/**
 * The sentence for one failing field, worded for a person: the field's own words for the rule it
 * broke, else the service's message when it is plain enough, else a general one.
 */
export function fieldSentence(p: FieldProblem): string {
  const w = wordsOf(p.path);
  const byRule = p.rule ? ruleText(w, p.rule) : undefined;
  if (byRule) return sentence(byRule);
  const own = w?.reword?.(p.message);
  if (own) return sentence(own);
  // A value left empty reaches the service as null ("must not be null").
  if (/\bnull\b/.test(p.message)) return sentence(w?.empty ?? "Fill this in");
  // A domain message ("must be in the future"): said without the field key it may start with.
  const key = p.path.split(".").pop() ?? "";
  const msg = p.message.replace(new RegExp(`^(${escape(p.path)}|${escape(key)})\\s*:?\\s*`), "");
  const whole = /^(must|is|are|has|needs) /i.test(msg) && w ? `${w.label} ${msg}` : msg;
  if (msg && plainEnough(whole)) return sentence(whole);
  if (w?.format) return sentence(w.format);
  return "This value cannot be used here. Check it and try again.";
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Each failing field once, with its name and sentence (the same sentence twice is said once). */
export function fieldProblems(
  fields: FieldProblem[],
): { path: string; label: string; text: string }[] {
  const seen = new Set<string>();
  const out: { path: string; label: string; text: string }[] = [];
  for (const f of fields) {
    const text = fieldSentence(f);
    const key = `${f.path}\n${text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: f.path, label: fieldLabel(f.path), text });
  }
  return out;
}
