// The lessons' arithmetic on the engine's answers, free of the page so
// node's test runner checks it (web/test).

// bestOfRole is the best rate among the methods the lesson casts in a role
// (the registry says which: the page knows no method by name).
export function bestOfRole(a, role) {
  return Math.max(...Object.keys(a.rates).filter((m) => a.roles[m] === role).map((m) => a.rates[m]));
}
