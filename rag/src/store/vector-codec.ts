/**
 * Vectors are stored as raw little-endian float32 BLOBs, `dimension * 4`
 * bytes, so a reader can copy them straight into one Float32Array.
 */
export const VECTOR_FORMAT = 'float32le';

export function encodeVector(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes;
}

export function decodeVector(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i += 1) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}
