// What the server says about its API level and build.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './paths.js';

/** API feature level of the contract this server implements. */
export const FEATURE_LEVEL = 419;

const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string };
export const SERVICE_VERSION: string = pkg.version;
/** Not a fork of any other release line: the merge base is the version itself. */
export const SERVICE_MERGE_BASE: string = pkg.version;
