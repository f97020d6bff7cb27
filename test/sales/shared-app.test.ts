/**
 * The sales modules that need only the plain app, in one worker process around one shared app
 * (`sharedTestApp` in test/helpers/app.ts says why and what a module must respect).
 */
import test from 'ava';
import { stopSharedTestApp } from '../helpers/app.js';
import './commission-stored.cases.js';
import './commission.cases.js';
import './credit-fold.cases.js';

test.after.always(stopSharedTestApp);
