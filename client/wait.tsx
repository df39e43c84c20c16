/// <reference lib="dom" />
/** Browser entry of /wait: hydrates the waiting-room island from the props the server embedded. */
import { hydrate } from "preact";
import { JoinCheck } from "../islands/JoinCheck.tsx";
import { WaitRoom, type WaitRoomProps } from "../islands/WaitRoom.tsx";

const data = document.getElementById("tg-props");
const root = document.getElementById("tg-wait");
const check = document.getElementById("tg-check");
if (data && root) {
  const props: WaitRoomProps = JSON.parse(data.textContent ?? "{}");
  hydrate(<WaitRoom {...props} />, root);
  // Marks the page as live (tests and styles can tell a hydrated page from a no-JS one).
  root.dataset.live = "1";
} else if (data && check) {
  // The check before joining (the queue's bot challenge is on).
  hydrate(<JoinCheck {...JSON.parse(data.textContent ?? "{}").check} />, check);
  check.dataset.live = "1";
} else if (document.body.dataset.retryUrl) {
  // A notice that tries again by itself (full room, rate limit, outage): the reload the meta
  // refresh does without JS, by script, so it is not a meta refresh (WCAG 2.2.1).
  const url = document.body.dataset.retryUrl;
  const seconds = Math.max(1, Number(document.body.dataset.retryIn) || 10);
  setTimeout(() => location.replace(url), seconds * 1000);
}
