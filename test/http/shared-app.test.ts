/**
 * The http modules that need only the plain app, in one worker process around one shared app
 * (`sharedTestApp` in test/helpers/app.ts says why and what a module must respect).
 */
import test from 'ava';
import { stopSharedTestApp } from '../helpers/app.js';
import './api-surface.cases.js';
import './resource-params.cases.js';
import './smoke.cases.js';
import './text-rule.cases.js';

test.after.always(stopSharedTestApp);
