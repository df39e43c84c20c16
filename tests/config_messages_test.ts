/**
 * A bad number in the environment is told the range it must be in. The sweep started the service
 * with `MAX_WAITING_VISITORS=-1` and was told it "must be a whole number" (it is one), and with
 * `STORE_FAILURE_OPEN_SECONDS=5` got zod's "Too small: expected number to be >=10"; `QUEUES=a,a`
 * listed the queue twice in the start line.
 */
import { assert, assertEquals } from "./assert.ts";
import { ConfigError, parseEnv } from "../lib/config.ts";

function refusal(env: Record<string, string>): string {
  try {
    parseEnv(env);
  } catch (e) {
    assert(e instanceof ConfigError, String(e));
    return e.message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

Deno.test("a number out of range or misspelt names the variable and its range", () => {
  assertEquals(
    refusal({ MAX_WAITING_VISITORS: "-1" }),
    'invalid MAX_WAITING_VISITORS="-1": must be a whole number from 1 to 50000000',
  );
  assertEquals(
    refusal({ STORE_FAILURE_OPEN_SECONDS: "5" }),
    'invalid STORE_FAILURE_OPEN_SECONDS="5": must be a whole number from 10 to 86400',
  );
  assertEquals(
    refusal({ CAPACITY: "abc" }),
    'invalid CAPACITY="abc": must be a whole number from 1 to 10000000',
  );
  assertEquals(
    refusal({ ADMIT_PER_SECOND: "0.01" }),
    'invalid ADMIT_PER_SECOND="0.01": must be a number from 0.1 to 100000',
  );
  assertEquals(refusal({ ADMIT_PER_SECOND: "NaN" }).endsWith("from 0.1 to 100000"), true);
  assertEquals(parseEnv({ QUEUES: "a,b,a" }).QUEUES, ["a", "b"], "each queue once");
});
