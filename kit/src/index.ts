/** `@notegate/kit`: small pieces both halves of notegate use. CLI pieces: `@notegate/kit/cli`; HTTP: `@notegate/kit/http`. */
export { errorMessage } from './error-message.js';
export { isRecord } from './records.js';
