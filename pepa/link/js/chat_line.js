// Who said a chat line, and what: the forms servers send it in. Pure (no bot, no I/O).
//
// A line is a player's only when its sender can be named and that name is on the
// server's player list, or the packet carries the sender's account (a real UUID).
// The forms, in order of trust:
//  1. player chat (position 'chat'): the packet's sender UUID (vanilla 1.16 sends it;
//     flying-squid sends 0), else the translate key chat.type.text (its with[0]
//     component names the sender), else "<name> text" on the flattened line;
//  2. a whisper: the translate key commands.message.display.incoming (vanilla's /msg,
//     /tell, /w), or "name whispers to you: text" on a system line;
//  3. a system line "<name> text" (servers and proxies that send player chat as system
//     chat, flying-squid from 1.19; Paper with chat plugins often does too);
//  4. an operator-set pattern (--chat-pattern) with the named groups `name` and `text`,
//     on system lines and on chat lines no other form named.
// Anything else is a system line: it names nobody. Each form anchors at the start of the
// line, so "<alice> come" quoted inside another player's message is never alice's.

const NIL_UUID = /^0{8}-0{4}-0{4}-0{4}-0{12}$|^0$/
const NAME = '[A-Za-z0-9_]{1,16}'
const CHAT_RE = new RegExp(`^<(${NAME})> (.*)$`, 's')
const WHISPER_RE = new RegExp(`^(${NAME}) whispers(?: to you)?: (.*)$`, 's')
const WHISPER_KEYS = ['commands.message.display.incoming']

// line: the flattened text; position: mineflayer's ('chat', 'system', 'game_info');
// sender: the packet's sender UUID or null; translate / args: the component's key and
// its with[] flattened; onList(name): whether a player of that name is listed;
// accountOf(uuid): the listed name of that account or null; pattern: a RegExp or null.
// Returns { kind: 'player' | 'whisper' | 'system', from, text, source }.
function parseChat ({ line, position, sender, translate, args, onList, nameOf, pattern }) {
  const system = { kind: 'system', from: null, text: line, source: null }
  if (position === 'game_info') return system // the action bar: never a player's
  const uuid = sender && !NIL_UUID.test(String(sender)) ? String(sender) : null
  const key = typeof translate === 'string' ? translate : ''
  const with2 = Array.isArray(args) && args.length >= 2
  if (WHISPER_KEYS.includes(key) && with2) {
    const from = uuid ? nameOf(uuid) : args[0]
    return from && (uuid || onList(from)) ? { kind: 'whisper', from, text: args[1], source: uuid ? 'uuid' : 'translate' } : system
  }
  if (position === 'chat') {
    let from = uuid ? nameOf(uuid) : null
    let source = from ? 'uuid' : null
    let text = null
    if (key.startsWith('chat.type.text') && with2) {
      if (!uuid) { from = args[0]; source = 'translate' }
      text = args[1]
    }
    const m = CHAT_RE.exec(line)
    if (text == null && m) { text = m[2]; if (!uuid) { from = m[1]; source = 'regex' } }
    if (text == null && !uuid) return custom(line, pattern, onList) || system
    // a real sender UUID is a player's line even when no name is found: never a server's
    return { kind: from || uuid ? 'player' : 'system', from, text: text != null ? text : line, source }
  }
  const m = CHAT_RE.exec(line)
  if (m && onList(m[1])) return { kind: 'player', from: m[1], text: m[2], source: 'system-line' }
  const w = WHISPER_RE.exec(line)
  if (w && onList(w[1])) return { kind: 'whisper', from: w[1], text: w[2], source: 'system-line' }
  return custom(line, pattern, onList) || system
}

function custom (line, pattern, onList) {
  if (!pattern) return null
  pattern.lastIndex = 0 // sticky: a match starts at the line's start, whatever the pattern says
  const m = pattern.exec(line)
  const from = m && m.groups && m.groups.name
  if (!from || !onList(from)) return null
  return { kind: 'player', from, text: m.groups.text || '', source: 'pattern' }
}

// A --chat-pattern as a sticky RegExp: every match starts at the line's start (a wrapper
// such as ^(?:...) could be closed from inside the pattern; the sticky flag cannot). The
// Python side validated it (it compiles here too, names `name` and `text`); null for none.
function chatPattern (source) {
  if (!source) return null
  return new RegExp(String(source), 'sy')
}

module.exports = { parseChat, chatPattern, NIL_UUID }
