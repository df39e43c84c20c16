/**
 * One join of the proof-of-work attack scenario, as a client at address `ip` sends it (the
 * server names the client from `x-client-ip`); shared by the ordinary visitors and the attacker's
 * worker.
 */

/** A solution sent with a join. */
export interface Proof {
  challenge: string;
  nonce: string;
}

/** Sends `POST /join` into queue `default` from `ip`, with `proof` when given. */
export function postJoin(url: string, ip: string, proof?: Proof): Promise<Response> {
  return fetch(`${url}/join`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-client-ip": ip },
    body: JSON.stringify({ queue: "default", ...(proof ? { proof } : {}) }),
  });
}
