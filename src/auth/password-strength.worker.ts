// The password strength estimator's thread: zxcvbn (the estimator the reference uses) with its common and
// English dictionaries, answering { id, password } with { id, guesses }. Its dictionaries take a few hundred
// milliseconds to load and one estimate up to about a second, so neither runs on the server's event loop.
import { parentPort } from 'node:worker_threads';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';

const estimator = new ZxcvbnFactory({
  dictionary: { ...common.dictionary, ...en.dictionary },
  graphs: common.adjacencyGraphs,
  translations: en.translations,
});

// Loaded: estimates may start (their time budget does not include loading the dictionaries).
parentPort!.postMessage({ ready: true });
parentPort!.on('message', ({ id, password }: { id: number; password: string }) => {
  parentPort!.postMessage({ id, guesses: estimator.check(password).guesses });
});
