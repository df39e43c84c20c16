/**
 * Country codes of the country block: ISO 3166-1 alpha-2, as edge networks send them in the
 * visitor-country header (Cloudflare's `cf-ipcountry`). `XX` (unknown) and `T1` (Tor) are not
 * countries: a visitor with either, or with no header, is never blocked.
 */
import { type LineError, listLines } from "./lines.ts";

/** The 249 officially assigned ISO 3166-1 alpha-2 codes, by first letter. */
const ISO_3166_1 = [
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ",
  "BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ",
  "CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ",
  "DE DJ DK DM DO DZ",
  "EC EE EG EH ER ES ET",
  "FI FJ FK FM FO FR",
  "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY",
  "HK HM HN HR HT HU",
  "ID IE IL IM IN IO IQ IR IS IT",
  "JE JM JO JP",
  "KE KG KH KI KM KN KP KR KW KY KZ",
  "LA LB LC LI LK LR LS LT LU LV LY",
  "MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ",
  "NA NC NE NF NG NI NL NO NP NR NU NZ",
  "OM",
  "PA PE PF PG PH PK PL PM PN PR PS PT PW PY",
  "QA",
  "RE RO RS RU RW",
  "SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ",
  "TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ",
  "UA UG UM US UY UZ",
  "VA VC VE VG VI VN VU",
  "WF WS",
  "YE YT",
  "ZA ZM ZW",
].join(" ").split(" ");

/** Assigned codes plus `XK` (Kosovo: user-assigned, but sent by edge networks). */
export const COUNTRY_CODES: ReadonlySet<string> = new Set([...ISO_3166_1, "XK"]);

/** Header values that mean "country unknown": never blocked. */
const UNKNOWN = new Set(["XX", "T1"]);

/** The visitor's country from the header value, upper-cased; null when missing or unknown. */
export function visitorCountry(header: string | null | undefined): string | null {
  if (!header) return null;
  const cc = header.trim().toUpperCase();
  return cc.length === 2 && !UNKNOWN.has(cc) ? cc : null;
}

/** Parses the block list (one code per line, any case, `#` comments): sorted unique codes, or bad lines. */
export function parseCountries(text: string): { countries: string[]; errors: LineError[] } {
  const found = new Set<string>();
  const errors: LineError[] = [];
  for (const { line, value } of listLines(text)) {
    const cc = value.toUpperCase();
    if (UNKNOWN.has(cc)) {
      errors.push({
        line,
        value,
        message: `"${value}" means an unknown country (or Tor); such visitors are never blocked`,
      });
    } else if (!COUNTRY_CODES.has(cc)) {
      errors.push({
        line,
        value,
        message: `"${value}" is not an ISO 3166-1 alpha-2 country code (e.g. DE, GB, US)`,
      });
    } else found.add(cc);
  }
  return { countries: [...found].sort(), errors };
}
