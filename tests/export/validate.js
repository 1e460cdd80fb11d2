// Validates glTF files with the Khronos glTF-Validator (npm gltf-validator, installed by
// .ci/install-deps into tests/export/node_modules). Prints a one-line summary per file and every
// message of severity error, warning or info; exits 1 if any file has an error or a warning.
// Usage: node validate.js FILE.glb|FILE.gltf...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function check(file) {
    const data = new Uint8Array(fs.readFileSync(file));
    const report = await validator.validateBytes(data, {
        uri: path.basename(file),
        maxIssues: 0,
        externalResourceFunction: (uri) =>
            new Promise((resolve, reject) => {
                fs.readFile(path.join(path.dirname(file), decodeURIComponent(uri)), (err, d) =>
                    err ? reject(err.toString()) : resolve(new Uint8Array(d)));
            }),
    });
    const is = report.issues;
    console.log(`${file}: ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ` +
                `${is.numHints} hints (${report.info ? report.info.animationCount : '?'} animations, ` +
                `${report.info ? report.info.drawCallCount : '?'} draw calls)`);
    for (const m of is.messages) {
        if (m.severity <= 2) {
            console.log(`  [${['error', 'warning', 'info'][m.severity]}] ${m.code} ${m.pointer || ''}: ${m.message}`);
        }
    }
    return is.numErrors === 0 && is.numWarnings === 0;
}

(async () => {
    let ok = true;
    for (const f of process.argv.slice(2)) {
        try {
            ok = (await check(f)) && ok;
        } catch (e) {
            console.log(`${f}: cannot validate: ${e}`);
            ok = false;
        }
    }
    process.exit(ok ? 0 : 1);
})();
