import { TERMINAL_TASK_STATUSES } from '@conduit-mcp/server';
import type { Redis } from 'ioredis';

// The Lua side of RedisTaskStore: each operation is one script, so that the owner check, the bounds and the status
// rules hold against every other instance at once. Expiry decisions use Redis's clock (TIME), the one PEXPIREAT keys
// expire by; `lastUpdatedAt` comes from the caller's clock, the one `createdAt` was read from. Task and owner keys are
// made from the prefix here, as `taskKey`/`ownerKey` make them: on Redis Cluster, a hash tag in the prefix (`{mcp}:`)
// puts them all in one slot.

/** Most expired tasks one call purges; at a bound, a create purges up to {@link PURGE_AT_BOUND} before refusing. */
const PURGE_BATCH = 100;
const PURGE_AT_BOUND = 1_000;

const terminal = [...TERMINAL_TASK_STATUSES].map((status) => {
  if (!/^[a-z_]+$/.test(status)) throw new Error(`RedisTaskStore: unexpected terminal status "${status}"`);
  return `['"${status}"'] = true`;
});

// A script that declares itself (Redis 7) is refused whole, before it runs, while Redis is out of memory: Lua has no
// rollback, and a write refused halfway would leave a task without its index entries.
const WRITES = '#!lua\n';

const COMMON = `
local TERMINAL = { ${terminal.join(', ')} }

local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- A field's share of the task's JSON size: "name":value plus a comma (the record's braces add 1 - the last comma).
local function weight(name, value)
  return #name + 4 + #value
end

local function parseEntry(entry)
  local seq, bytes, owner = string.match(entry, '^(%d+):(%d+):(.*)$')
  return seq, tonumber(bytes), owner
end

-- The owner's task as it is, or nil when absent, expired (at expiresAt, as the in-memory store) or another owner's.
local function live(key, ownerJson, now)
  local fields = redis.call('HMGET', key, 'owner', 'expiresAt')
  if fields[1] ~= ownerJson or not fields[2] or tonumber(fields[2]) <= now then return nil end
  return true
end

-- Forgets up to limit tasks whose expiry passed, correcting the totals with the sizes kept in their entries.
local function purge(prefix, expiry, entries, totals, now, limit)
  local ids = redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do
    local entry = redis.call('HGET', entries, id)
    if entry then
      local _, bytes, owner = parseEntry(entry)
      redis.call('ZREM', prefix .. 'task:owner:' .. owner, id)
      redis.call('HDEL', entries, id)
      redis.call('HINCRBY', totals, 'tasks', -1)
      redis.call('HINCRBY', totals, 'bytes', -bytes)
    end
    redis.call('UNLINK', prefix .. 'task:' .. id)
    redis.call('ZREM', expiry, id)
  end
  return #ids
end
`;

/**
 * KEYS: task, owner, created, expiry, entries, totals. ARGV: prefix, taskId, owner, expiresAt (integer ms), maxTasks,
 * maxTasksPerOwner, maxBytes, maxTaskBytes, then field, value… Answers 1 when created (or already expired: as good as
 * created and gone), 0 when the id is taken or a bound is reached.
 */
const CREATE = `${WRITES}${COMMON}
local prefix, taskId, owner, expiresAt = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = nowMs()
local purged = purge(prefix, KEYS[4], KEYS[5], KEYS[6], now, ${PURGE_BATCH})
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('HEXISTS', KEYS[5], taskId) == 1 then return 0 end
local size = 1
for i = 9, #ARGV, 2 do size = size + weight(ARGV[i], ARGV[i + 1]) end
if size > tonumber(ARGV[8]) then return 0 end
local function fits()
  local totals = redis.call('HMGET', KEYS[6], 'tasks', 'bytes')
  return tonumber(totals[1] or '0') < tonumber(ARGV[5])
    and redis.call('ZCARD', KEYS[2]) < tonumber(ARGV[6])
    and tonumber(totals[2] or '0') + size <= tonumber(ARGV[7])
end
if not fits() and purged == ${PURGE_BATCH} then purge(prefix, KEYS[4], KEYS[5], KEYS[6], now, ${PURGE_AT_BOUND}) end
if not fits() then return 0 end
if expiresAt <= now then return 1 end
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], unpack(ARGV, 9))
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
-- The owner's list goes with its last task, should the index ever lose track of it.
local fresh = redis.call('EXISTS', KEYS[2]) == 0
redis.call('ZADD', KEYS[2], seq, taskId)
if fresh then redis.call('PEXPIREAT', KEYS[2], ARGV[4]) else redis.call('PEXPIREAT', KEYS[2], ARGV[4], 'GT') end
redis.call('ZADD', KEYS[4], expiresAt, taskId)
redis.call('HSET', KEYS[5], taskId, seq .. ':' .. size .. ':' .. owner)
redis.call('HINCRBY', KEYS[6], 'tasks', 1)
redis.call('HINCRBY', KEYS[6], 'bytes', size)
return 1
`;

/** KEYS: task. ARGV: owner (JSON). Answers the task's fields and values, or nil. */
const GET = `#!lua flags=no-writes
${COMMON}
if not live(KEYS[1], ARGV[1], nowMs()) then return nil end
return redis.call('HGETALL', KEYS[1])
`;

/**
 * KEYS: task, entries, totals. ARGV: taskId, owner (JSON), mode (`update` or `cancel`), lastUpdatedAt (JSON),
 * maxBytes, maxTaskBytes, then field, value… (an empty value removes the field). Answers the task as it now is, or
 * nil when absent, another owner's, past a byte bound, or terminal (an update; a cancel answers it unchanged).
 */
const WRITE = `${WRITES}${COMMON}
local taskId, mode = ARGV[1], ARGV[3]
if not live(KEYS[1], ARGV[2], nowMs()) then return nil end
if TERMINAL[redis.call('HGET', KEYS[1], 'status')] then
  if mode == 'cancel' then return redis.call('HGETALL', KEYS[1]) end
  return nil
end
local entry = redis.call('HGET', KEYS[2], taskId)
if not entry then return nil end
local seq, size, owner = parseEntry(entry)
local grown, set, removed = 0, {}, {}
local function change(name, value)
  local old = redis.call('HSTRLEN', KEYS[1], name)
  if old > 0 then grown = grown - #name - 4 - old end
  if value == '' then
    removed[#removed + 1] = name
  else
    grown = grown + weight(name, value)
    set[#set + 1] = name
    set[#set + 1] = value
  end
end
for i = 7, #ARGV, 2 do change(ARGV[i], ARGV[i + 1]) end
change('lastUpdatedAt', ARGV[4])
local total = tonumber(redis.call('HGET', KEYS[3], 'bytes') or '0')
if size + grown > tonumber(ARGV[6]) or grown > tonumber(ARGV[5]) - total then return nil end
redis.call('HSET', KEYS[1], unpack(set))
if #removed > 0 then redis.call('HDEL', KEYS[1], unpack(removed)) end
redis.call('HSET', KEYS[2], taskId, seq .. ':' .. (size + grown) .. ':' .. owner)
redis.call('HINCRBY', KEYS[3], 'bytes', grown)
return redis.call('HGETALL', KEYS[1])
`;

/**
 * KEYS: owner, created, expiry, entries, totals. ARGV: prefix, owner (JSON), cursor (empty for the first page),
 * limit. Answers {0} for a cursor past the creation counter (this store did not make it), else {1, nextCursor or '',
 * task fields…}: newest first, below the cursor's creation number, whatever expired since.
 */
const LIST = `${WRITES}${COMMON}
local prefix, ownerJson, cursor, limit = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = nowMs()
purge(prefix, KEYS[3], KEYS[4], KEYS[5], now, ${PURGE_BATCH})
local below = '+inf'
if cursor ~= '' then
  if tonumber(cursor) > tonumber(redis.call('GET', KEYS[2]) or '0') then return {0} end
  below = '(' .. cursor
end
local page, found, last, offset = {1, ''}, 0, nil, 0
while true do
  local batch = redis.call('ZREVRANGEBYSCORE', KEYS[1], below, '-inf', 'WITHSCORES', 'LIMIT', offset, limit + 1)
  if #batch == 0 then return page end
  for i = 1, #batch, 2 do
    local key = prefix .. 'task:' .. batch[i]
    if live(key, ownerJson, now) then
      if found == limit then
        page[2] = last
        return page
      end
      found = found + 1
      page[#page + 1] = redis.call('HGETALL', key)
      last = batch[i + 1]
    end
  end
  offset = offset + #batch / 2
end
`;

/** The scripts as ioredis commands (`defineCommand`: EVALSHA, EVAL once when Redis does not know the script yet). */
export interface RedisTaskCommands {
  conduitTaskCreate(...keysAndArgs: string[]): Promise<number>;
  conduitTaskGet(...keysAndArgs: string[]): Promise<string[] | null>;
  conduitTaskWrite(...keysAndArgs: string[]): Promise<string[] | null>;
  conduitTaskList(...keysAndArgs: string[]): Promise<[0] | [1, string, ...string[][]]>;
}

/** Defines the store's commands on `redis` (again is harmless: two stores may share a connection). */
export function defineTaskCommands(redis: Redis): RedisTaskCommands {
  redis.defineCommand('conduitTaskCreate', { numberOfKeys: 6, lua: CREATE });
  redis.defineCommand('conduitTaskGet', { numberOfKeys: 1, lua: GET });
  redis.defineCommand('conduitTaskWrite', { numberOfKeys: 3, lua: WRITE });
  redis.defineCommand('conduitTaskList', { numberOfKeys: 5, lua: LIST });
  return redis as unknown as RedisTaskCommands;
}
