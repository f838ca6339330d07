'use strict'
// The line `--version` prints, as oclif words it (its user agent): the package, the platform (wsl
// under Windows' Linux), the architecture (x86 for ia32) and Node's version.
const {arch, release} = require('node:os')

module.exports = function versionLine(name, version) {
  const platform = process.platform === 'linux' && release().toLowerCase().includes('microsoft') ? 'wsl' : process.platform
  return `${name}/${version} ${platform}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}`
}
