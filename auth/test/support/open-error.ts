/**
 * The error opening something throws, or undefined when it opened (then it is closed again at once,
 * so a test that expected a refusal fails instead of hanging on what it opened).
 */
export async function openError(open: () => Promise<{ close(): Promise<void> }>): Promise<unknown> {
  let opened: { close(): Promise<void> };
  try {
    opened = await open();
  } catch (err) {
    return err;
  }
  await opened.close();
  return undefined;
}
