import { afterEach } from 'vitest';

/**
 * Registers what a test opens (servers, clients, transports) and closes it after each test, the last
 * opened first, so a client is closed before the server it talks to.
 */
export function closeAfterEach(): <T extends { close(): Promise<void> }>(resource: T) => T {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const resource of open.splice(0).reverse()) await resource.close();
  });
  return (resource) => {
    open.push(resource);
    return resource;
  };
}
