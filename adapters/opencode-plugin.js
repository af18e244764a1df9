// Aletheia for OpenCode. OpenCode runs no command hooks, only plugins, so this plugin does what
// the other hosts' hook settings do: it hands session and tool events to
// `aletheia hook opencode <event>` on stdin (mapped by adapters/opencode.toml), and puts the
// memory block the hook prints into each model call's system prompt.
//
// The installer copies this file into OpenCode's plugin folder with the binary's absolute path
// in place of __ALETHEIA_BIN__. A plugin that throws or stalls would break or slow OpenCode, so
// every call here swallows its errors and gives up after TIMEOUT_MS.

import { spawn } from "node:child_process"

const BIN = "__ALETHEIA_BIN__"
// The hook has its own one-second deadline; this only bounds a process that hangs regardless.
const TIMEOUT_MS = 3000

// Run one hook with `payload` on stdin; resolves to its stdout, or "" on any failure.
function hook(event, payload) {
  return new Promise((resolve) => {
    let out = ""
    let timer
    const finish = (text) => {
      clearTimeout(timer)
      resolve(text)
    }
    try {
      const body = JSON.stringify(payload)
      const child = spawn(BIN, ["hook", "opencode", event], {
        stdio: ["pipe", "pipe", "ignore"],
      })
      timer = setTimeout(() => {
        child.kill()
        finish("")
      }, TIMEOUT_MS)
      child.stdout.on("data", (chunk) => (out += chunk))
      child.on("error", () => finish(""))
      child.on("close", () => finish(out.trim()))
      child.stdin.on("error", () => {})
      child.stdin.end(body)
    } catch {
      finish("")
    }
  })
}

export const AletheiaMemory = async ({ directory }) => {
  // Session id -> promise of its memory block, fetched once and added to every model call.
  const blocks = new Map()
  // Session id -> id of the assistant message being written, and that message's latest text:
  // session.idle does not say what the assistant said last, so it is remembered here.
  const replying = new Map()
  const lastText = new Map()

  const context = (sessionID, event, payload) => {
    if (!blocks.has(sessionID)) blocks.set(sessionID, hook(event, payload))
    return blocks.get(sessionID)
  }

  // Shapes are read with `?.` throughout: a field OpenCode renames must cost a memory, never
  // an exception inside OpenCode.
  return {
    event: async ({ event }) => {
      const p = event?.properties ?? {}
      switch (event?.type) {
        case "session.created":
          if (p.info?.id) context(p.info.id, "event.session.created", { event, directory })
          break
        case "message.updated":
          if (p.info?.role === "assistant") replying.set(p.info.sessionID, p.info.id)
          break
        case "message.part.updated":
          if (p.part?.type === "text" && replying.get(p.part.sessionID) === p.part.messageID)
            lastText.set(p.part.sessionID, p.part.text)
          break
        case "session.idle":
          hook("event.session.idle", {
            event,
            directory,
            last_assistant_message: lastText.get(p.sessionID),
          })
          lastText.delete(p.sessionID)
          break
        case "session.deleted":
          for (const map of [blocks, replying, lastText]) map.delete(p.info?.id)
          break
      }
    },

    "chat.message": async (input, output) => {
      // OpenCode adds synthetic text parts for attached files; the prompt is the user's own.
      const prompt = (output?.parts ?? [])
        .filter((part) => part?.type === "text" && !part.synthetic)
        .map((part) => part.text)
        .join("\n")
      hook("chat.message", { input, output, directory, prompt })
    },

    "tool.execute.after": async (input, output) => {
      hook("tool.execute.after", { input, output, directory })
    },

    "experimental.chat.system.transform": async (input, output) => {
      if (!input?.sessionID || !Array.isArray(output?.system)) return
      // Only the session: the rest of the input is model and provider settings.
      const block = await context(input.sessionID, "experimental.chat.system.transform", {
        input: { sessionID: input.sessionID },
        directory,
      })
      if (block) output.system.push(block)
    },
  }
}
