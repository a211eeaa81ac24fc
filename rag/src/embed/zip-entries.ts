import type { FileHandle } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { errorMessage } from '@notegate/kit';

/**
 * Reading the entries of a zip archive (a jar, a wheel, a zip) with Node's
 * own zlib: the central directory lists the entries, each entry's bytes are
 * stored or raw-deflated (APPNOTE.TXT §4.3). Integrity is not this module's
 * job: every file taken from an archive is checked against its pinned SHA-256
 * (docs/retrieval.md#installing-weights).
 */
export interface ZipEntry {
  readonly name: string;
  readonly compressedBytes: number;
  readonly sizeBytes: number;
  readonly method: number;
  readonly encrypted: boolean;
  readonly localHeaderOffset: number;
}

/** A file that is not a readable zip archive; the message says why. */
export class ZipFormatError extends Error {}

/** APPNOTE.TXT §4.3.16: the end of central directory record, 22 bytes plus a comment of at most 65,535. */
const END_RECORD_SIGNATURE = 0x06054b50;
const END_RECORD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
/** §4.3.12 and §4.3.7. */
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const CENTRAL_HEADER_BYTES = 46;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;
/** §4.4.5: the compression methods read here. */
const STORED = 0;
const DEFLATED = 8;
/** A 32-bit field at its maximum means the value is in a zip64 extra field (§4.4.8). */
const ZIP64_MARK = 0xffffffff;

/** Whether the first bytes are a zip's: a local file header, or the end record of an empty archive. */
export function looksLikeZip(head: Buffer): boolean {
  if (head.length < 4) return false;
  const signature = head.readUInt32LE(0);
  return signature === LOCAL_HEADER_SIGNATURE || signature === END_RECORD_SIGNATURE;
}

/** The archive's entries from its central directory; folders (names ending in `/`) left out. */
export async function readZipEntries(file: FileHandle, fileBytes: number): Promise<ZipEntry[]> {
  const tailBytes = Math.min(fileBytes, END_RECORD_BYTES + MAX_COMMENT_BYTES);
  const tail = await readAt(file, fileBytes - tailBytes, tailBytes);
  let end = -1;
  for (let at = tail.length - END_RECORD_BYTES; at >= 0; at -= 1) {
    if (tail.readUInt32LE(at) === END_RECORD_SIGNATURE) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ZipFormatError('no end of central directory record (not a zip archive, or a truncated one)');
  const count = tail.readUInt16LE(end + 10);
  const directoryBytes = tail.readUInt32LE(end + 12);
  const directoryOffset = tail.readUInt32LE(end + 16);
  if (directoryOffset === ZIP64_MARK || directoryBytes === ZIP64_MARK) {
    throw new ZipFormatError('a zip64 archive (over 4 GiB), which is not read here');
  }
  if (directoryOffset + directoryBytes > fileBytes) {
    throw new ZipFormatError('the central directory lies beyond the end of the file (a truncated archive)');
  }
  const directory = await readAt(file, directoryOffset, directoryBytes);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    if (at + CENTRAL_HEADER_BYTES > directory.length || directory.readUInt32LE(at) !== CENTRAL_HEADER_SIGNATURE) {
      throw new ZipFormatError(`central directory entry ${i + 1} of ${count} is damaged`);
    }
    const nameBytes = directory.readUInt16LE(at + 28);
    const extraBytes = directory.readUInt16LE(at + 30);
    const commentBytes = directory.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      name: directory.toString('utf8', at + CENTRAL_HEADER_BYTES, at + CENTRAL_HEADER_BYTES + nameBytes),
      // §4.4.4: bit 0 of the flags marks an encrypted entry.
      encrypted: (directory.readUInt16LE(at + 8) & 1) === 1,
      method: directory.readUInt16LE(at + 10),
      compressedBytes: directory.readUInt32LE(at + 20),
      sizeBytes: directory.readUInt32LE(at + 24),
      localHeaderOffset: directory.readUInt32LE(at + 42),
    };
    if (!entry.name.endsWith('/')) entries.push(entry);
    at += CENTRAL_HEADER_BYTES + nameBytes + extraBytes + commentBytes;
  }
  return entries;
}

/** The entry's bytes, inflated; a damaged, truncated, encrypted or otherwise compressed entry is a ZipFormatError. */
export async function readZipEntry(file: FileHandle, fileBytes: number, entry: ZipEntry): Promise<Buffer> {
  if (entry.encrypted) throw new ZipFormatError(`${entry.name} is encrypted`);
  if (entry.compressedBytes === ZIP64_MARK || entry.sizeBytes === ZIP64_MARK) {
    throw new ZipFormatError(`${entry.name} is a zip64 entry (over 4 GiB), which is not read here`);
  }
  const header = await readAt(file, entry.localHeaderOffset, LOCAL_HEADER_BYTES);
  if (header.length < LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
    throw new ZipFormatError(`${entry.name}: no local header where the central directory says`);
  }
  const dataOffset = entry.localHeaderOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (dataOffset + entry.compressedBytes > fileBytes) {
    throw new ZipFormatError(`${entry.name} ends beyond the end of the file (a truncated archive)`);
  }
  const data = await readAt(file, dataOffset, entry.compressedBytes);
  let bytes: Buffer;
  if (entry.method === STORED) bytes = data;
  else if (entry.method === DEFLATED) {
    try {
      bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.sizeBytes) });
    } catch (err) {
      throw new ZipFormatError(`${entry.name} does not inflate (${errorMessage(err)})`);
    }
  } else
    throw new ZipFormatError(`${entry.name} uses compression method ${entry.method}; only stored and deflate are read`);
  if (bytes.length !== entry.sizeBytes) {
    throw new ZipFormatError(`${entry.name} holds ${bytes.length} bytes, its directory entry says ${entry.sizeBytes}`);
  }
  return bytes;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}
