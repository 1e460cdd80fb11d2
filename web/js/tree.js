// The binary tree file (docs/tree-format.md): header, names, parents, flags, positions; the
// FNV-1a-64 checksum is verified. Positions stay a Float32Array view (node-major, body, axis).
function fnv1a64(bytes, end) {
  // 64-bit FNV-1a in two 32-bit halves: h * 0x100000001b3 = h * 0x1b3 + (h << 40) (mod 2^64).
  let lo = 0x84222325, hi = 0xcbf29ce4;
  for (let i = 0; i < end; ++i) {
    lo = (lo ^ bytes[i]) >>> 0;
    const t = lo * 0x1b3;
    const carry = Math.floor(t / 4294967296);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = t >>> 0;
  }
  return [lo, hi];
}

export function parseTree(buffer) {
  const bytes = new Uint8Array(buffer);
  const dv = new DataView(buffer);
  const fail = (why) => {
    throw new Error(`tree: ${why}`);
  };
  const magic = [0x54, 0x50, 0x54, 0x52, 0x45, 0x45, 0x00, 0x01];
  if (bytes.length < 32 || magic.some((m, i) => bytes[i] !== m)) fail("not a tplan tree file (bad magic number)");
  const version = dv.getUint32(8, true);
  if (version !== 1) fail(`unsupported tree version ${version} (this page reads version 1)`);
  const nb = dv.getUint32(12, true);
  const nn = Number(dv.getBigInt64(16, true));
  if (nn < 0 || nn > 2147483647 || nb > 1 << 20) fail("absurd header counts");
  const [lo, hi] = fnv1a64(bytes, bytes.length - 8);
  if (dv.getUint32(bytes.length - 8, true) !== lo || dv.getUint32(bytes.length - 4, true) !== hi) {
    fail("checksum mismatch (file is corrupt)");
  }
  let off = 24;
  const names = [];
  const dec = new TextDecoder();
  for (let b = 0; b < nb; ++b) {
    if (off + 2 > bytes.length) fail("truncated file (names)");
    const n = dv.getUint16(off, true);
    names.push(dec.decode(bytes.subarray(off + 2, off + 2 + n)));
    off += 2 + n;
  }
  if (bytes.length - 8 - off !== nn * (5 + 12 * nb)) fail("node data does not match the header");
  const parent = new Int32Array(buffer.slice(off, off + 4 * nn));
  off += 4 * nn;
  const flags = bytes.subarray(off, off + nn);
  off += nn;
  const pos = new Float32Array(buffer.slice(off, off + 12 * nn * nb));
  for (let i = 1; i < nn; ++i) if (parent[i] < 0 || parent[i] >= i) fail(`node ${i}: parent ${parent[i]} is not an earlier node`);
  return { names, nnodes: nn, nbodies: nb, parent, flags, pos };
}
