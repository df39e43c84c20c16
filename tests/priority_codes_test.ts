/**
 * The engine-independent parts of priority lanes: lane validation and the split of a second's
 * admissions, codes (issued once, stored as keyed hashes, single- or multi-use, expiring,
 * revocable, redeemed with a checked write, refused clearly and without a count past their uses),
 * lane tokens (the enqueue token format with a `lane` claim), and the admin API with its audit.
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";
import { FakeClock } from "../lib/clock.ts";
import { checkLanes, MAIN_LINE, splitAdmissions } from "../lib/priority/lanes.ts";
import {
  codeHash,
  issueCodes,
  normalizeCode,
  PriorityCodeError,
  redeemCode,
  revokeCode,
} from "../lib/priority/codes.ts";
import { EnqueueTokenInvalidError, EnqueueTokens } from "../lib/guard/enqueue.ts";
import { BadRequestError } from "../lib/errors.ts";
import { keys } from "../lib/store/keys.ts";

const SECRET = "priority-test-secret-priority-test-0123";

/** The refusal `fn` ends with (it must end with one). */
async function refusal(fn: () => Promise<unknown>): Promise<PriorityCodeError> {
  try {
    await fn();
  } catch (e) {
    assert(e instanceof PriorityCodeError, `a PriorityCodeError, not ${e}`);
    return e;
  }
  throw new Error("expected a refusal");
}

Deno.test("lanes: names, shares and strictness are checked; bad ones are named", () => {
  checkLanes([{ name: "members", share: 0.3 }, { name: "staff", strict: true }]);
  const fields = (lanes: Parameters<typeof checkLanes>[0]) => {
    try {
      checkLanes(lanes);
      return [];
    } catch (e) {
      assert(e instanceof BadRequestError);
      return (e.details.fields as { path: string }[]).map((f) => f.path);
    }
  };
  assertEquals(fields([{ name: "Bad Name", share: 0.1 }]), ["lanes.0.name"]);
  assertEquals(fields([{ name: "a", share: 0.1 }, { name: "a", share: 0.1 }]), ["lanes.1.name"]);
  assertEquals(fields([{ name: "a" }]), ["lanes.0.share"]);
  assertEquals(fields([{ name: "a", share: 1 }]), ["lanes.0.share"]);
  assertEquals(fields([{ name: "a", share: 0.2, strict: true }]), ["lanes.0.share"]);
  assertEquals(fields([{ name: "a", share: 0.6 }, { name: "b", share: 0.5 }]), ["lanes"]);
});

Deno.test("a second's admissions split: strict first, then shares, the rest to the main line", () => {
  const lanes = checkLanes([{ name: "members", share: 0.3 }, { name: "staff", strict: true }]);
  assertEquals(splitAdmissions(lanes, 10, { members: 50, staff: 2, [MAIN_LINE]: 1000 }), {
    staff: 2,
    members: 2,
    [MAIN_LINE]: 6,
  });
  // An empty main line leaves its part to the lanes; nobody waiting, nothing admitted.
  assertEquals(splitAdmissions(lanes, 10, { members: 50 }), { members: 10 });
  assertEquals(splitAdmissions(lanes, 10, {}), {});
  // A small budget still gives a lane with waiters at least one.
  assertEquals(splitAdmissions(lanes, 2, { members: 5, [MAIN_LINE]: 5 }), {
    members: 1,
    [MAIN_LINE]: 1,
  });
  // Never more than the budget, whatever the mix.
  for (let budget = 0; budget < 40; budget++) {
    const out = splitAdmissions(lanes, budget, { members: 7, staff: 3, [MAIN_LINE]: 11 });
    const sum = Object.values(out).reduce((a, b) => a + b, 0);
    assertEquals(sum, Math.min(budget, 21), `budget ${budget}`);
  }
});

Deno.test("codes: typed forgivingly, stored only as keyed hashes, counted per use", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  try {
    const { codes, records } = await issueCodes(kv, clock, SECRET, {
      queue: "default",
      lane: "members",
      count: 3,
      maxUses: 2,
      expiresAt: clock.now() + 3_600_000,
      label: "press",
      createdBy: "admin",
    });
    assertEquals(codes.length, 3);
    assert(/^[0-9A-Z]{5}-[0-9A-Z]{5}-[0-9A-Z]{5}$/.test(codes[0]));
    assertEquals(new Set(codes).size, 3);
    // Nothing stored holds the code.
    for await (const e of kv.list({ prefix: [] })) {
      assert(!JSON.stringify(e).includes(codes[0].replaceAll("-", "")), "no raw code stored");
    }
    const typed = ` ${codes[0].toLowerCase().replaceAll("-", " ").replaceAll("0", "o")} `;
    assertEquals(normalizeCode(typed), codes[0].replaceAll("-", ""));
    assertEquals((await redeemCode(kv, clock, SECRET, "default", typed)).uses, 1);
    const second = await redeemCode(kv, clock, SECRET, "default", codes[0]);
    assertEquals([second.uses, second.lane], [2, "members"]);
    const used = await refusal(() => redeemCode(kv, clock, SECRET, "default", codes[0]));
    assertEquals(used.reason, "used_up");
    const rec = (await kv.get<{ uses: number }>(
      keys.priorityCode("default", codeHash(SECRET, "default", normalizeCode(codes[0])!)),
    )).value;
    assertEquals(rec?.uses, 2, "a refused use counts nothing");

    const reason = async (raw: string, queue = "default") =>
      (await refusal(() => redeemCode(kv, clock, SECRET, queue, raw))).reason;
    assertEquals(await reason("short"), "malformed");
    assertEquals(await reason("UUUUU-UUUUU-UUUUU"), "malformed");
    assertEquals(await reason("00000-00000-00000"), "unknown");
    assertEquals(await reason(codes[1], "other"), "unknown", "a code is for its queue only");
    await revokeCode(kv, clock, "default", records[1].id);
    assertEquals(await reason(codes[1]), "revoked");
    clock.advance(3_600_001);
    assertEquals(await reason(codes[2]), "expired");
    const gone = await revokeCode(kv, clock, "default", "nope").catch((e) => e);
    assertEquals(gone.code, "not_found");
  } finally {
    kv.close();
  }
});

Deno.test("a single-use code redeemed by many at once is used exactly once", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  try {
    const { codes } = await issueCodes(kv, clock, SECRET, {
      queue: "default",
      lane: "vip",
      count: 1,
      maxUses: 1,
      expiresAt: null,
      label: "",
      createdBy: "admin",
    });
    const tries = await Promise.allSettled(
      Array.from({ length: 20 }, () => redeemCode(kv, clock, SECRET, "default", codes[0])),
    );
    assertEquals(tries.filter((t) => t.status === "fulfilled").length, 1);
  } finally {
    kv.close();
  }
});

Deno.test("lane tokens: the enqueue token format with a lane claim", () => {
  const t = new EnqueueTokens(SECRET);
  const exp = Math.floor(Date.now() / 1000) + 60;
  const plain = t.verify(t.sign({ queue: "q", key: "k", exp }), "q", Date.now());
  assertEquals(plain.lane, undefined);
  const laned = t.verify(t.sign({ queue: "q", key: "k", exp, lane: "members" }), "q", Date.now());
  assertEquals(laned.lane, "members");
  const bad = t.sign({ queue: "q", key: "k", exp, lane: "Not A Lane" });
  let refused: unknown = null;
  try {
    t.verify(bad, "q", Date.now());
  } catch (e) {
    refused = e;
  }
  assert(refused instanceof EnqueueTokenInvalidError && refused.reason === "malformed");
});

Deno.test("the admin API: lanes, codes issued once, listed without codes, revoked, audited", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const noLane = await admin.req("POST", "/api/admin/priority-codes", { lane: "members" });
    assertEquals(noLane.status, 400, "codes need a defined lane");
    const badLanes = await admin.req("PUT", "/api/admin/lanes", {
      lanes: [{ name: "a", share: 0.7 }, { name: "b", share: 0.4 }],
    });
    assertEquals(badLanes.status, 400);
    assertEquals((await admin.req("GET", "/api/admin/lanes")).json.lanes, [], "nothing changed");
    const lanes = await admin.req("PUT", "/api/admin/lanes", {
      lanes: [{ name: "members", share: 0.3 }],
    });
    assertEquals(lanes.status, 200, lanes.text);
    const issued = await admin.req("POST", "/api/admin/priority-codes", {
      lane: "members",
      count: 2,
      maxUses: 5,
      label: "newsletter",
    });
    assertEquals(issued.status, 200, issued.text);
    assertEquals(issued.json.codes.length, 2);
    const listed = await admin.req("GET", "/api/admin/priority-codes");
    assertEquals(listed.json.codes.length, 2);
    assert(!listed.text.includes(issued.json.codes[0]), "the list never shows a code");
    const id = issued.json.records[0].id;
    const revoked = await admin.req("DELETE", `/api/admin/priority-codes/${id}`);
    assertEquals(revoked.status, 200);
    assert(revoked.json.revokedAt !== null);
    const audit = await admin.req("GET", "/api/admin/audit");
    assert(!audit.text.includes(issued.json.codes[0]), "the audit log never shows a code");
    const actions = audit.json.entries.map((e: { action: string }) => e.action);
    for (const a of ["queue.lanes", "queue.priority-codes.issue", "queue.priority-codes.revoke"]) {
      assert(actions.includes(a), a);
    }
  } finally {
    t.close();
  }
});
