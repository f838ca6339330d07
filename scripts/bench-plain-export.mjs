#!/usr/bin/env node
// The yardstick for `deposits list --all`: the plainest export a script could write with Node
// alone. One token, then every page of one snapshot fetched in turn with `fetch`, each record
// written to stdout as one line of JSON.
// Usage: node scripts/bench-plain-export.mjs BASE_URL [PER_PAGE]   (GATEWAY_CLIENT_ID, GATEWAY_CLIENT_SECRET)
const [baseUrl, perPage = '100'] = process.argv.slice(2)
const {GATEWAY_CLIENT_ID: clientId, GATEWAY_CLIENT_SECRET: clientSecret} = process.env
if (!baseUrl || !clientId || !clientSecret) {
  process.stderr.write('usage: GATEWAY_CLIENT_ID=... GATEWAY_CLIENT_SECRET=... node scripts/bench-plain-export.mjs BASE_URL [PER_PAGE]\n')
  process.exit(2)
}

const tokenResponse = await fetch(`${baseUrl}/auth/token`, {
  method: 'POST',
  headers: {'content-type': 'application/x-www-form-urlencoded'},
  body: new URLSearchParams({grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret}),
})
if (!tokenResponse.ok) throw new Error(`token: ${tokenResponse.status}`)
const {access_token: token} = /** @type {{access_token: string}} */ (await tokenResponse.json())

/** Waits until stdout has room, as any exporter writing to a file or a pipe must. */
const write = (text) => (process.stdout.write(text) ? undefined : new Promise((resolve) => process.stdout.once('drain', resolve)))

let snapshot
for (let page = 1, totalPages = 1; page <= totalPages; page += 1) {
  const query = new URLSearchParams({page: String(page), perPage})
  if (snapshot) query.set('snapshot', snapshot)
  const response = await fetch(`${baseUrl}/core/deposit?${query}`, {headers: {authorization: `Bearer ${token}`, accept: 'application/json'}})
  if (!response.ok) throw new Error(`page ${page}: ${response.status} ${await response.text()}`)
  const body = /** @type {any} */ (await response.json())
  snapshot ??= body.snapshot
  totalPages = body.totalPages
  if (body.data.length === 0) break
  await write(body.data.map((record) => `${JSON.stringify(record)}\n`).join(''))
}
