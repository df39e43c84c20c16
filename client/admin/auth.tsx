/// <reference lib="dom" />
/** Placeholder: sign-in, invite accept, recovery and the terms screens (being written). */
import type { ScreenProps } from "./boot.ts";

export function Login(_: ScreenProps) {
  return <p>Sign-in is being built.</p>;
}
export function InviteAccept(_: ScreenProps & { token: string }) {
  return <p>Invite accept is being built.</p>;
}
export function Recover(_: ScreenProps) {
  return <p>Recovery is being built.</p>;
}
export function TosAccept(_: ScreenProps) {
  return <p>Terms acceptance is being built.</p>;
}
