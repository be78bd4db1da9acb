// Shortest paths on a network's mean link times, free of the map so that
// node's test runner checks them (web/test/paths.test.js).
// shortestTimes is Dijkstra's on the links' mean times from node index o
// (a binary heap: cities have tens of thousands of links).
export function shortestTimes(net, o) {
  const out = net.nodes.map(() => []);
  for (const l of net.links) out[l.from].push(l);
  const dist = new Float64Array(net.nodes.length).fill(Infinity);
  dist[o] = 0;
  const heap = [[0, o]];
  const push = (x) => {
    heap.push(x);
    for (let i = heap.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (heap[p][0] <= heap[i][0]) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  const pop = () => {
    const top = heap[0], last = heap.pop();
    if (heap.length) {
      heap[0] = last;
      for (let i = 0; ;) {
        const a = 2 * i + 1, b = a + 1;
        let m = i;
        if (a < heap.length && heap[a][0] < heap[m][0]) m = a;
        if (b < heap.length && heap[b][0] < heap[m][0]) m = b;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  };
  while (heap.length) {
    const [t, v] = pop();
    if (t > dist[v]) continue;
    for (const l of out[v]) {
      if (t + l.mean < dist[l.to]) {
        dist[l.to] = t + l.mean;
        push([dist[l.to], l.to]);
      }
    }
  }
  return dist;
}
