// Drives SimpleX's own XFTP client (xftp-web/src, bundled from a simplexmq checkout by ./run) in
// Node against an XFTP server, so that sxkit's server, descriptions and links are checked by
// SimpleX's code rather than by sxkit's. Output goes to files; xftp-web prints its own debug lines.
//
//   node driver.mjs upload FILE ADDRESS[,ADDRESS…] OUT_DIR  -> OUT_DIR/{recipient.yaml,sender.yaml,uri.txt}
//   node driver.mjs download DESCRIPTION OUT_FILE  (a YAML description, or a file holding a link)
//   node driver.mjs delete SENDER.yaml
import fs from "node:fs"
import path from "node:path"
import {
  newXFTPAgent, closeXFTPAgent, encryptFileForUpload, uploadFile, downloadFile, deleteFile,
  decodeDescriptionURI,
} from "XFTP_WEB_SRC/agent.ts"
import { parseXFTPServer } from "XFTP_WEB_SRC/protocol/address.ts"
import { encodeFileDescription, decodeFileDescription, validateFileDescription } from "XFTP_WEB_SRC/protocol/description.ts"

function readDescription(file) {
  const text = fs.readFileSync(file, "utf8").trim()
  const hash = text.indexOf("#")
  if (text.startsWith("https://") || text.startsWith("http://")) return decodeDescriptionURI(text.slice(hash + 1))
  const fd = decodeFileDescription(text + "\n")
  const problem = validateFileDescription(fd)
  if (problem) throw new Error("invalid description: " + problem)
  return fd
}

const [command, ...args] = process.argv.slice(2)
const agent = newXFTPAgent()
try {
  if (command === "upload") {
    const [file, addresses, out] = args
    const encrypted = encryptFileForUpload(new Uint8Array(fs.readFileSync(file)), path.basename(file))
    const result = await uploadFile(agent, addresses.split(",").map(parseXFTPServer), encrypted)
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(path.join(out, "recipient.yaml"), encodeFileDescription(result.rcvDescription), { mode: 0o600 })
    fs.writeFileSync(path.join(out, "sender.yaml"), encodeFileDescription(result.sndDescription), { mode: 0o600 })
    fs.writeFileSync(path.join(out, "uri.txt"), result.uri + "\n")
  } else if (command === "download") {
    const [description, out] = args
    const { header, content } = await downloadFile(agent, readDescription(description))
    fs.writeFileSync(out, content)
    fs.writeFileSync(out + ".name", header.fileName)
  } else if (command === "delete") {
    await deleteFile(agent, readDescription(args[0]))
  } else {
    throw new Error("usage: driver.mjs upload|download|delete ...")
  }
} catch (e) {
  // One line the run script can show: the error's class, message and XFTP error type.
  console.error(`xftp-web failed: ${e?.name ?? "Error"}: ${e?.message ?? e}${e?.errorType ? ` (${e.errorType})` : ""}`)
  process.exitCode = 1
} finally {
  closeXFTPAgent(agent)
}
