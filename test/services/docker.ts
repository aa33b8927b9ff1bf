// Whether a Docker engine is there for testcontainers.
import { getContainerRuntimeClient } from 'testcontainers';

let available: Promise<boolean> | null = null;

export function dockerAvailable(): Promise<boolean> {
  available ??= getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  return available;
}
