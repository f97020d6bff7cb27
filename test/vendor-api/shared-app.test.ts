/**
 * The vendor-api modules that need only the plain app, in one worker process around one shared app
 * (`sharedTestApp` in test/helpers/app.ts says why and what a module must respect).
 */
import test from 'ava';
import { stopSharedTestApp } from '../helpers/app.js';
import './idempotency.cases.js';
import './idempotency-conflict.cases.js';
import './idempotent-replay-bytes.cases.js';
import './vendor-standing.cases.js';
import './vendor-view.cases.js';

test.after.always(stopSharedTestApp);
