/**
 * Request and response schemas of the edge routes (setup steps and live controls), shared by both
 * route modules so the contract describes one shape of each thing.
 */
import { z } from "@hono/zod-openapi";

/** A DNS name in ASCII (punycode for IDNs), at least two labels; compared lower-cased. */
export const DNS_NAME_RE =
  /^(?=.{1,253}\.?$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/;

/** A zone, hostname or custom-domain name. */
export const DnsName = z.string().trim().regex(DNS_NAME_RE, {
  message: "must be a DNS name like queue.example.com (ASCII; punycode for other scripts)",
});

/**
 * A Cloudflare user API token: the classic 40 characters, or the scannable `cfut_` form new tokens
 * have (developers.cloudflare.com/fundamentals/api/get-started/token-formats). A Global API Key
 * (`cfk_`) is no bearer token, and an account-owned token (`cfat_`) cannot be checked with
 * `/user/tokens/verify`; both are refused here with words rather than after a provider call.
 */
export const API_TOKEN_RE = /^(?:[A-Za-z0-9_-]{40}|cfut_[A-Za-z0-9_-]{40,64})$/;

/** The API token field of the edge calls. */
export const ApiToken = z.string().trim().regex(API_TOKEN_RE, {
  message: "must be a Cloudflare user API token (40 characters, or cfut_…); a Global API Key " +
    "(cfk_…) or an account-owned token (cfat_…) does not work here: create one under My Profile " +
    "> API Tokens",
}).openapi({ description: "Cloudflare user API token; stored sealed, never returned" });

/** Where a missing hostname record should point: an IPv4/IPv6 address (A/AAAA) or a name (CNAME). */
export const FixTarget = z.union([z.ipv4(), z.ipv6(), DnsName]).optional().openapi({
  description: "only used when the hostname has no A/AAAA/CNAME record: the record is created, " +
    "proxied, pointing here (IPv4 -> A, IPv6 -> AAAA, name -> CNAME)",
});

const Nullable = z.string().nullable();

/** One DNS record as responses show it. */
export const RecordView = z.object({
  type: z.string(),
  name: z.string(),
  content: z.string(),
  proxied: z.boolean(),
}).openapi("EdgeDnsRecord");

/** The outcome of proxying the hostname. */
export const ProxyOutcome = z.object({
  records: z.array(RecordView),
  changed: z.array(RecordView).openapi({ description: "records switched to proxied now" }),
  created: RecordView.nullable().openapi({ description: "the record created from `target`" }),
});

/** A zone setting after a step: its value and whether this call changed it. */
export const SettingOutcome = z.object({ value: z.string(), changed: z.boolean() });

/** The pending edge part of setup as the wizard sees it (never the token). */
export const PendingEdgeView = z.object({
  tokenVerified: z.boolean(),
  tokenReadable: z.boolean().openapi({
    description: "false after a TOKEN_SECRET rotation: paste the token again",
  }),
  zoneId: Nullable,
  zoneName: Nullable,
  accountId: Nullable,
  hostname: Nullable,
  fixed: z.boolean(),
  ssl: z.enum(["strict", "skipped"]).nullable(),
  domains: z.array(z.string()),
  missing: z.array(z.string()).openapi({ description: "steps still to do" }),
  complete: z.boolean(),
}).openapi("PendingEdge");

/** The live edge link as the admin app sees it (never the token). */
export const EdgeLinkView = z.object({
  linked: z.boolean(),
  zoneId: z.string().optional(),
  zoneName: z.string().optional(),
  accountId: Nullable.optional(),
  hostname: z.string().optional(),
  ssl: z.enum(["strict", "skipped"]).optional(),
  domains: z.array(z.string()).optional(),
  linkedAt: z.number().int().optional(),
  hasToken: z.boolean().optional(),
  tokenReadable: z.boolean().optional().openapi({
    description: "false after a TOKEN_SECRET rotation: save the token again",
  }),
}).openapi("EdgeLink");

/** One custom domain's state in Cloudflare. */
export const DomainStatus = z.object({
  domain: z.string(),
  state: z.enum(["ok", "not_proxied", "points_elsewhere", "missing"]),
  ok: z.boolean(),
  message: z.string(),
}).openapi("EdgeDomainStatus");

/** The result of attaching a domain. */
export const AttachOutcome = z.object({
  domain: z.string(),
  created: z.boolean(),
  changed: z.boolean(),
  record: RecordView,
});
