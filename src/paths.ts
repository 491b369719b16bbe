// Locations inside the installed package, valid from both src/ (tests of sources) and dist/.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

export const packageRoot = findRoot();
export const migrationsDir = path.join(packageRoot, 'src', 'persistence', 'migrations');
