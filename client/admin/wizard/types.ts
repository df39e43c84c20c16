/// <reference lib="dom" />
/** What the wizard's steps share: the server's progress (`GET /api/admin/setup`) and step props. */
import type { SetupProgress } from "../../../lib/challenge/setup.ts";
import type { Bootstrap } from "../boot.ts";

/** `GET /api/admin/setup` (the server's own type). */
export type { SetupProgress };

/** Props of one step: the flags, the progress, a way to re-read it, and to move on. */
export interface StepProps {
  boot: Bootstrap;
  progress: SetupProgress | null;
  /** Re-reads the progress (after every successful call). */
  reload: () => Promise<SetupProgress | null>;
  /** Goes to the next step. */
  next: () => void;
  /** Leaves the wizard (setup finished, or the account was claimed): re-reads bootstrap. */
  done: () => void;
}

/** Whether the edge part is done ("no edge network" chosen, all Cloudflare steps, or live). */
export const edgeDone = (p: SetupProgress | null) =>
  !!p && (p.edge.none || p.live.edge && !p.edge.token ||
    p.edge.token && p.edge.zone && p.edge.fix && p.edge.ssl);

/** Whether the challenge part is done (built-in solved, verified widget, or already live). */
export const challengeDone = (p: SetupProgress | null) =>
  !!p && (p.challenge.builtin || p.challenge.verified ||
    p.live.challenge && !p.challenge.provisioned);
