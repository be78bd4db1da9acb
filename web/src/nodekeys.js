// The map's keyboard picking as a pure step, free of the map so node's test
// runner checks it (web/test): N and P step through the nodes, digits typed
// within 1.5 s of each other name a node by id, Enter picks the current one.

// TYPING_MS is how long typed digits wait for the next one.
export const TYPING_MS = 1500;

// nodeKey answers one key press. state is {cur, typed, typedAt} (cur −1
// before any node); byId maps a node id to its index; count is the number of
// nodes. It returns the next state and what the map should do: go (an index
// to move to), pick (pick the current node), say (an announcement), or
// handled false for a key the map keeps (arrows, +/−).
export function nodeKey(state, key, at, byId, count) {
  const step = { n: 1, N: 1, p: -1, P: -1 }[key];
  if (step) {
    const cur = (state.cur + step + count) % count;
    return { state: { ...state, cur, typed: "" }, go: cur, handled: true };
  }
  if (/^[0-9]$/.test(key)) {
    const typed = (at - state.typedAt < TYPING_MS ? state.typed : "") + key;
    const next = { ...state, typed, typedAt: at };
    if (byId.has(typed)) {
      next.cur = byId.get(typed);
      return { state: next, go: next.cur, handled: true };
    }
    return { state: next, say: `no node ${typed} yet`, handled: true };
  }
  if (key === "Enter" && state.cur >= 0) {
    return { state: { ...state, typed: "" }, pick: true, handled: true };
  }
  return { state, handled: false };
}
