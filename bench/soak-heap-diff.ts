import { readFileSync } from 'node:fs';

/*
 * `npx tsx bench/soak-heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [rows]`: what grew in
 * the service's V8 heap between two snapshots of a soak run (see soak.ts, --heapsnapshot-signal),
 * by node type and constructor name: count and self size, largest growth first. Then, in AFTER,
 * the memory of ArrayBuffers (Buffers: images, bodies) by the chain of objects that retains them,
 * which is how the browser pool's hold on finished renders was found (docs/performance.md, "Soak").
 * Chrome DevTools' Comparison and Retainers views show the same, on a machine with a browser.
 */

interface HeapSnapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: string[];
      readonly node_types: [string[]];
      readonly edge_fields: string[];
      readonly edge_types: [string[]];
    };
  };
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

/** Retainer chains are cut at this depth: enough to reach the object that holds on. */
const CHAIN_DEPTH = 8;

function read(file: string): HeapSnapshot {
  return JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
}

function fieldIndex(fields: readonly string[], name: string): number {
  const index = fields.indexOf(name);
  if (index < 0) throw new Error(`heap snapshot without the ${name} field`);
  return index;
}

/** Node groups of one snapshot, keyed "type<TAB>name"; strings, numbers and code are one group each. */
function groups(heap: HeapSnapshot): { byKey: Map<string, Group>; bytes: number } {
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fieldIndex(fields, field));
  const byKey = new Map<string, Group>();
  let bytes = 0;
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = types[heap.nodes[i + (typeAt ?? 0)] ?? 0] ?? '?';
    const size = heap.nodes[i + (sizeAt ?? 0)] ?? 0;
    const name = /string|number|code/.test(type)
      ? ''
      : (heap.strings[heap.nodes[i + (nameAt ?? 0)] ?? 0] ?? '');
    const key = `${type}\t${name.slice(0, 80)}`;
    const group = byKey.get(key) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += size;
    byKey.set(key, group);
    bytes += size;
  }
  return { byKey, bytes };
}

/** ArrayBuffer backing stores grouped by their first retainer chain (weak edges left out). */
function arrayBufferRetainers(heap: HeapSnapshot): Map<string, Group> {
  const { node_fields: nodeFields, edge_fields: edgeFields, node_types, edge_types } = heap.snapshot.meta;
  const nodeWidth = nodeFields.length;
  const edgeWidth = edgeFields.length;
  const typeAt = fieldIndex(nodeFields, 'type');
  const nameAt = fieldIndex(nodeFields, 'name');
  const sizeAt = fieldIndex(nodeFields, 'self_size');
  const edgeCountAt = fieldIndex(nodeFields, 'edge_count');
  const edgeTypeAt = fieldIndex(edgeFields, 'type');
  const edgeNameAt = fieldIndex(edgeFields, 'name_or_index');
  const toAt = fieldIndex(edgeFields, 'to_node');
  const { nodes, edges, strings } = heap;
  const count = nodes.length / nodeWidth;
  const retainers: [number, string][][] = Array.from({ length: count }, () => []);
  let edge = 0;
  for (let node = 0; node < count; node++) {
    const end = edge + (nodes[node * nodeWidth + edgeCountAt] ?? 0) * edgeWidth;
    for (; edge < end; edge += edgeWidth) {
      const type = edge_types[0][edges[edge + edgeTypeAt] ?? 0] ?? '';
      if (type === 'weak') continue;
      const raw = edges[edge + edgeNameAt] ?? 0;
      const name = type === 'element' || type === 'hidden' ? '' : (strings[raw] ?? '');
      // Indexes vary from one object to the next; chains that differ only in them are one.
      const label = /^\d*$/.test(name) ? '[n]' : name;
      retainers[(edges[edge + toAt] ?? 0) / nodeWidth]?.push([node, label]);
    }
  }
  const describe = (node: number) =>
    `${node_types[0][nodes[node * nodeWidth + typeAt] ?? 0]}:${(strings[nodes[node * nodeWidth + nameAt] ?? 0] ?? '').slice(0, 40)}`;
  const chains = new Map<string, Group>();
  for (let node = 0; node < count; node++) {
    if (strings[nodes[node * nodeWidth + nameAt] ?? 0] !== 'system / JSArrayBufferData') continue;
    const links: string[] = [];
    const seen = new Set([node]);
    let current = node;
    for (let depth = 0; depth < CHAIN_DEPTH; depth++) {
      const next = retainers[current]?.find(([from]) => !seen.has(from));
      if (next === undefined) break;
      seen.add(next[0]);
      links.push(`${next[1]} <- ${describe(next[0])}`);
      current = next[0];
    }
    const key = links.join(' | ');
    const group = chains.get(key) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += nodes[node * nodeWidth + sizeAt] ?? 0;
    chains.set(key, group);
  }
  return chains;
}

function main(): void {
  const [beforeFile, afterFile, rows = '30'] = process.argv.slice(2);
  if (beforeFile === undefined || afterFile === undefined) {
    throw new Error('usage: soak-heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [rows]');
  }
  const before = groups(read(beforeFile));
  const afterHeap = read(afterFile);
  const after = groups(afterHeap);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  console.log(`self size in all: ${kb(before.bytes)} → ${kb(after.bytes)}`);
  const keys = new Set([...before.byKey.keys(), ...after.byKey.keys()]);
  const growth = [...keys].map((key) => {
    const was = before.byKey.get(key) ?? { count: 0, bytes: 0 };
    const now = after.byKey.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: now.count - was.count, bytes: now.bytes - was.bytes, now };
  });
  growth.sort((a, b) => b.bytes - a.bytes);
  console.log(['growth', 'objects', 'now', 'now objects', 'type and name'].join('\t'));
  for (const row of growth.slice(0, Number(rows))) {
    console.log([kb(row.bytes), `${row.count}`, kb(row.now.bytes), `${row.now.count}`, row.key].join('\t'));
  }
  console.log(`\nArrayBuffer memory in ${afterFile} by what retains it:`);
  const chains = [...arrayBufferRetainers(afterHeap)].sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [chain, group] of chains.slice(0, 10)) {
    console.log(`${kb(group.bytes)} in ${group.count}: ${chain}`);
  }
}

main();
