import type { Redis } from 'ioredis';

// Shared by the scripts that write: ARGV[1] is the key base (`<prefix>events:`), see EventStoreKeys for the scheme.
// Streams other than the one written are dropped by name, built here: the store runs on one Redis, not a cluster.
const COMMON = `
local base = ARGV[1]
local indexKey = base .. 'index'
local bytesKey = base .. 'bytes'

local function int(n)
  return string.format('%.0f', n)
end

local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function entrySize(fields)
  if fields[1] == 'm' then return #fields[2] end
  return 0
end

-- Forgets a stream and takes its bytes off every counter. Its keys may be gone already (expired): the counters
-- are what is corrected then.
local function dropStream(member)
  local size = tonumber(redis.call('HGET', bytesKey, member)) or 0
  redis.call('ZREM', indexKey, member)
  redis.call('HDEL', bytesKey, member)
  if size ~= 0 then redis.call('HINCRBY', bytesKey, ':total', -size) end
  local s, t = string.match(member, '^([^:]+):([^:]+)$')
  if not s then return end
  redis.call('DEL', base .. s .. ':' .. t, base .. 'meta:' .. s .. ':' .. t)
  local sessionKey = base .. 'meta:' .. s
  -- A stream left over from an expired index of its session is not counted in the session's bytes any more.
  local counted = redis.call('ZREM', sessionKey, t) == 1
  if redis.call('ZCARD', sessionKey) == 0 then
    redis.call('HDEL', bytesKey, s)
  elseif counted and size ~= 0 then
    redis.call('HINCRBY', bytesKey, s, -size)
  end
end
`;

// KEYS: stream, meta, session index, index, bytes. ARGV: base, session, stream, kind ('m' message, 'p' priming mark,
// 'big' a message larger than a stream may hold), json, maxEvents, maxStreamBytes, maxSessionBytes, maxBytes,
// maxStreams, ttl, purge budget. Returns the entry id.
const APPEND = `${COMMON}
local streamKey, metaKey, sessionKey = KEYS[1], KEYS[2], KEYS[3]
local s, t, kind, json = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local maxEvents, maxStreamBytes = tonumber(ARGV[6]), tonumber(ARGV[7])
local maxSessionBytes, maxBytes, maxStreams = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local ttl, purge = tonumber(ARGV[11]), tonumber(ARGV[12])
local member = s .. ':' .. t
local now = nowMs()

-- Expired streams leave their index entries and counts behind: a few are corrected on every write.
local stale = redis.call('ZRANGEBYSCORE', indexKey, '-inf', '(' .. int((now - ttl) * 1000), 'LIMIT', 0, purge)
for _, old in ipairs(stale) do dropStream(old) end

local fresh = redis.call('EXISTS', metaKey) == 0
if fresh then dropStream(member) end
if redis.call('EXISTS', sessionKey) == 0 then redis.call('HSET', bytesKey, s, 0) end

-- Last-write order: milliseconds scaled, made strictly increasing, so writes within one millisecond keep their order.
local score = math.max(now * 1000, (tonumber(redis.call('HGET', bytesKey, ':seq')) or 0) + 1)
redis.call('HSET', bytesKey, ':seq', int(score))

-- Entry ids restart with a new key: a stream dropped and written again starts past every id it ever gave, so a
-- cursor from before is below its floor (unknown) rather than a position in the new events.
local idSpec = '*'
if fresh then
  local clock = math.max(now, tonumber(redis.call('HGET', bytesKey, ':clock')) or 0) + 1
  redis.call('HSET', bytesKey, ':clock', int(clock))
  idSpec = int(clock) .. '-0'
end

local before = tonumber(redis.call('HGET', bytesKey, member)) or 0
local bytes = before
local id, floor
if kind == 'big' then
  -- Given an id but not kept: whatever came before it cannot be replayed without it. The emptied stream keeps its
  -- last id, so the ids after it still grow.
  id = redis.call('XADD', streamKey, idSpec, 'p', '1')
  redis.call('XTRIM', streamKey, 'MAXLEN', 0)
  bytes, floor = 0, id
else
  if kind == 'm' then
    id = redis.call('XADD', streamKey, idSpec, 'm', json)
    bytes = bytes + #json
  else
    id = redis.call('XADD', streamKey, idSpec, 'p', '1')
  end
  if fresh then floor = id end
  -- Oldest first, exactly: the last id dropped becomes the floor.
  local length = redis.call('XLEN', streamKey)
  while length > maxEvents or bytes > maxStreamBytes do
    local batch = redis.call('XRANGE', streamKey, '-', '+', 'COUNT', 64)
    local ids = {}
    for _, entry in ipairs(batch) do
      if length <= maxEvents and bytes <= maxStreamBytes then break end
      ids[#ids + 1] = entry[1]
      bytes = bytes - entrySize(entry[2])
      length = length - 1
      floor = entry[1]
    end
    if #ids == 0 then break end
    redis.call('XDEL', streamKey, unpack(ids))
  end
end
if floor then redis.call('HSET', metaKey, 'floor', floor) end
redis.call('PEXPIRE', streamKey, ttl)
redis.call('PEXPIRE', metaKey, ttl)

redis.call('ZADD', sessionKey, int(score), t)
redis.call('PEXPIRE', sessionKey, ttl)
redis.call('ZADD', indexKey, int(score), member)
redis.call('HSET', bytesKey, member, bytes)
if bytes ~= before then
  redis.call('HINCRBY', bytesKey, s, bytes - before)
  redis.call('HINCRBY', bytesKey, ':total', bytes - before)
end
-- The store-wide keys outlive every stream: they are written last, with every write.
redis.call('PEXPIRE', indexKey, ttl)
redis.call('PEXPIRE', bytesKey, ttl)

while (tonumber(redis.call('HGET', bytesKey, s)) or 0) > maxSessionBytes do
  local oldest = redis.call('ZRANGE', sessionKey, 0, 0)[1]
  if not oldest or oldest == t then break end
  dropStream(s .. ':' .. oldest)
end
while (tonumber(redis.call('HGET', bytesKey, ':total')) or 0) > maxBytes
  or redis.call('ZCARD', indexKey) > maxStreams do
  local oldest = redis.call('ZRANGE', indexKey, 0, 0)[1]
  if not oldest or oldest == member then break end
  dropStream(oldest)
end
return id
`;

// KEYS: meta. Marks the stream ended, if it exists.
const END = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'ended', '1') end
return 1
`;

// KEYS: session index. ARGV: base, session, batch. Drops up to `batch` streams of the session; returns how many are
// left.
const DELETE_SESSION = `${COMMON}
local sessionKey, s = KEYS[1], ARGV[2]
for _, t in ipairs(redis.call('ZRANGE', sessionKey, 0, tonumber(ARGV[3]) - 1)) do dropStream(s .. ':' .. t) end
local left = redis.call('ZCARD', sessionKey)
if left == 0 then redis.call('HDEL', bytesKey, s) end
return left
`;

// KEYS: meta, stream. ARGV: cursor (a canonical entry id), max entries, max bytes, strict ('1': more than that is
// unknown, a replay never cut short; '0': a batch, the rest on the next call). Returns false when the cursor is
// unknown (no stream, or below the floor), else {status, last id read, id, json, id, json…}: status 'ended' (all
// read and the stream ended), 'open' (all read) or 'partial' (more to read after the last id).
const READ = `
local function less(a, b)
  local ams, aseq = string.match(a, '^(%d+)-(%d+)$')
  local bms, bseq = string.match(b, '^(%d+)-(%d+)$')
  if ams ~= bms then return #ams < #bms or (#ams == #bms and ams < bms) end
  return #aseq < #bseq or (#aseq == #bseq and aseq < bseq)
end

local meta = redis.call('HMGET', KEYS[1], 'floor', 'ended')
local cursor = ARGV[1]
if not meta[1] or less(cursor, meta[1]) then return false end
local limit, maxBytes, strict = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local entries = redis.call('XRANGE', KEYS[2], '(' .. cursor, '+', 'COUNT', limit + 1)
local partial = #entries > limit
if partial then
  if strict then return false end
  entries[#entries] = nil
end
local out = { 'open', cursor }
local bytes = 0
for _, entry in ipairs(entries) do
  local fields = entry[2]
  if fields[1] == 'm' then
    bytes = bytes + #fields[2]
    if bytes > maxBytes then
      if strict then return false end
      -- At least one message per batch, so a reader always moves on.
      if #out > 2 then
        partial = true
        break
      end
    end
    out[#out + 1] = entry[1]
    out[#out + 1] = fields[2]
  end
  out[2] = entry[1]
end
if partial then
  out[1] = 'partial'
elseif meta[2] == '1' then
  out[1] = 'ended'
end
return out
`;

/** What {@link readEvents} answers: unknown (null), or the status, the last entry id read and `id, json` pairs. */
export type ReadReply = null | [status: 'ended' | 'open' | 'partial', last: string, ...idsAndJson: string[]];

/** The event store's scripts, as commands of one ioredis client. */
export interface EventStoreCommands {
  conduitEventStoreAppend(...keysAndArgs: Array<string | number>): Promise<string>;
  conduitEventStoreEnd(meta: string): Promise<number>;
  conduitEventStoreDeleteSession(...keysAndArgs: Array<string | number>): Promise<number>;
  conduitEventStoreRead(...keysAndArgs: Array<string | number>): Promise<ReadReply>;
}

/**
 * The scripts defined on `redis` (once per client; ioredis sends each by its SHA and loads it when Redis does not
 * know it yet).
 */
export function eventStoreCommands(redis: Redis): EventStoreCommands {
  const commands = redis as unknown as Partial<EventStoreCommands>;
  if (commands.conduitEventStoreAppend === undefined) {
    redis.defineCommand('conduitEventStoreAppend', { numberOfKeys: 5, lua: APPEND });
    redis.defineCommand('conduitEventStoreEnd', { numberOfKeys: 1, lua: END });
    redis.defineCommand('conduitEventStoreDeleteSession', { numberOfKeys: 1, lua: DELETE_SESSION });
    redis.defineCommand('conduitEventStoreRead', { numberOfKeys: 2, lua: READ, readOnly: true });
  }
  return commands as EventStoreCommands;
}
