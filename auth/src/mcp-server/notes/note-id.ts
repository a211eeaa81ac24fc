import { randomBytes } from 'node:crypto';

/** Note ids are chosen by the server: 96 random bits as 24 lowercase hex digits, a safe file name on any system. */
export const NOTE_ID_PATTERN = /^[0-9a-f]{24}$/;
const NOTE_FILE = /^([0-9a-f]{24})\.md$/;

export function newNoteId(): string {
  return randomBytes(12).toString('hex');
}

export function noteFileName(id: string): string {
  return `${id}.md`;
}

/** The id of a directory entry that is one of our note files, else undefined (temp files, other files). */
export function noteIdOfFile(name: string): string | undefined {
  return NOTE_FILE.exec(name)?.[1];
}
