#!/usr/bin/env node
import {run} from '../dist/cli/gateway.js'

await run(import.meta.url)
