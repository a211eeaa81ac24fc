/** Helpers for the tests of every notegate package (`@notegate/kit/testing`); never used by a program. */
export { dripBody, dripHeaders, getAndClose, holdConnection, type RawReply, sendNothing } from './bounded-clients.js';
export { assertOptionsDocumented, unwrapHelp } from './help-output.js';
