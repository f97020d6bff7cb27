/**
 * The catalog modules that need only the plain app, in one worker process around one shared app
 * (`sharedTestApp` in test/helpers/app.ts says why and what a module must respect).
 */
import test from 'ava';
import { stopSharedTestApp } from '../helpers/app.js';
import './catalog.cases.js';
import './doctypes.cases.js';

test.after.always(stopSharedTestApp);
