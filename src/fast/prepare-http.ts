// Evaluated first in the bundle of a command that always sends a request (tx get): undici's HTTP
// parser starts compiling on V8's background threads while the rest of the bundle is evaluated
// and the command reads its files (see src/api/http-parser.ts).
import {prepareHttpParser} from '../api/http-parser.js'

void prepareHttpParser()
