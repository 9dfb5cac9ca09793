import type { Redis } from 'ioredis';

/*
 * The store's Lua scripts: each operation that reads and writes runs as one script, so that bounds hold across
 * instances. KEYS are always [index, sizes, bytes] and, for a record's operations, its hash; per-principal sorted
 * sets are named from the index key (the hash holds the principal), so a client-side ioredis keyPrefix applies to
 * them too. Standalone Redis only: those keys are not declared, which Redis Cluster would refuse.
 *
 * Time is the Redis server's (TIME), so instances with skewed clocks agree on what expired. A record's expiry time
 * is its hash's PEXPIREAT and its score in the index (and in its principal's set); a member scored before now is an
 * expired record whose hash Redis already dropped, purged lazily with its bytes.
 */

const PRELUDE = `
local index, sizes, bytes, hash = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local base = string.sub(index, 1, -6) -- '<prefix>sessions:', the index key without 'index'

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Scores and times as integers: tostring would print large numbers in exponent form.
local function ms(n)
  return string.format('%d', n)
end

local function owner_key(principal)
  return base .. 'principal:' .. principal
end

local function principal_of(raw)
  if raw then return cjson.decode(raw) end
  return nil
end

-- A total of zero leaves no key behind.
local function add_bytes(delta)
  if delta ~= 0 and redis.call('INCRBY', bytes, delta) <= 0 then redis.call('DEL', bytes) end
end

local function total_bytes()
  return tonumber(redis.call('GET', bytes)) or 0
end

-- Drops up to limit index entries of expired records, and their bytes (a principal's set is purged on its own).
local function purge(now, limit)
  local ids = redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. ms(now), 'LIMIT', 0, limit)
  if #ids == 0 then return end
  local freed = 0
  for _, id in ipairs(ids) do freed = freed + (tonumber(redis.call('HGET', sizes, id)) or 0) end
  redis.call('HDEL', sizes, unpack(ids))
  redis.call('ZREM', index, unpack(ids))
  add_bytes(-freed)
end

-- A bookkeeping key lives at least as long as the record just written, so that all of them go when all idle.
local function extend(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end

local function drop_expired(key, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. ms(now))
end

-- Restarts a record's idle clock wherever its expiry is kept.
local function stamp(id, principal, now, idle)
  local at = ms(now + idle)
  redis.call('PEXPIREAT', hash, at)
  redis.call('ZADD', index, at, id)
  extend(index, idle)
  extend(sizes, idle)
  extend(bytes, idle)
  if principal then
    local key = owner_key(principal)
    redis.call('ZADD', key, at, id)
    extend(key, idle)
  end
end
`;

/** ARGV: id, bytes, idleMs, maxSessions, maxBytes, maxPerPrincipal, has principal (1/0), principal, field, value… */
const CREATE = `${PRELUDE}
local id, size, idle = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local max_sessions, max_bytes, max_owned = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local principal = nil
if ARGV[7] == '1' then principal = ARGV[8] end
if redis.call('EXISTS', hash) == 1 then return 'exists' end
local now = now_ms()
purge(now, 100)
-- The entry of an expired record of the same id, not purged yet.
local stale = redis.call('HGET', sizes, id)
if stale then
  redis.call('HDEL', sizes, id)
  redis.call('ZREM', index, id)
  add_bytes(-tonumber(stale))
end
if redis.call('ZCOUNT', index, ms(now), '+inf') >= max_sessions then return 'full' end
if total_bytes() + size > max_bytes then
  purge(now, 1000)
  if total_bytes() + size > max_bytes then return 'full' end
end
if principal then
  local key = owner_key(principal)
  drop_expired(key, now)
  if redis.call('ZCARD', key) >= max_owned then return 'full' end
end
redis.call('HSET', hash, unpack(ARGV, 9))
redis.call('HSET', sizes, id, size)
add_bytes(size)
stamp(id, principal, now, idle)
return 'ok'
`;

/** ARGV: id, idleMs, maxRecordBytes, maxBytes, maxPerPrincipal, n, n field/value items, fields to remove… */
const UPDATE = `${PRELUDE}
local id, idle = ARGV[1], tonumber(ARGV[2])
local max_record, max_bytes, max_owned = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local n = tonumber(ARGV[6])
if redis.call('EXISTS', hash) == 0 then return 0 end
local function field_bytes(name, json)
  return #name + #json + 4
end
local names, values, touched = {}, {}, {}
for i = 7, 6 + n, 2 do
  names[#names + 1] = ARGV[i]
  values[#values + 1] = ARGV[i + 1]
  touched[#touched + 1] = ARGV[i]
end
local removed = {}
for i = 7 + n, #ARGV do
  removed[#removed + 1] = ARGV[i]
  touched[#touched + 1] = ARGV[i]
end
local delta = 0
if #touched > 0 then
  local old = redis.call('HMGET', hash, unpack(touched))
  for i, name in ipairs(touched) do
    if old[i] then delta = delta - field_bytes(name, old[i]) end
    if i <= #names then delta = delta + field_bytes(name, values[i]) end
  end
end
local counted = tonumber(redis.call('HGET', sizes, id))
local size = counted
if not size then -- no size kept (written by hand?): measured from the hash, and counted from now on
  size = 1
  local flat = redis.call('HGETALL', hash)
  for i = 1, #flat, 2 do size = size + field_bytes(flat[i], flat[i + 1]) end
end
local new_size = size + delta
if new_size > max_record then return 0 end
local growth = delta
if not counted then growth = new_size end
local now = now_ms()
if growth > 0 and growth > max_bytes - total_bytes() then
  purge(now, 1000)
  if growth > max_bytes - total_bytes() then return 0 end
end
local old_principal = principal_of(redis.call('HGET', hash, 'principal'))
local new_principal = old_principal
for i, name in ipairs(names) do
  if name == 'principal' then new_principal = cjson.decode(values[i]) end
end
for _, name in ipairs(removed) do
  if name == 'principal' then new_principal = nil end
end
if new_principal and new_principal ~= old_principal then
  local key = owner_key(new_principal)
  drop_expired(key, now)
  if redis.call('ZCARD', key) >= max_owned then return 0 end
end
if old_principal and old_principal ~= new_principal then redis.call('ZREM', owner_key(old_principal), id) end
if #names > 0 then redis.call('HSET', hash, unpack(ARGV, 7, 6 + n)) end
if #removed > 0 then redis.call('HDEL', hash, unpack(removed)) end
redis.call('HSET', sizes, id, new_size)
add_bytes(growth)
stamp(id, new_principal, now, idle)
return 1
`;

/** ARGV: id, idleMs. */
const TOUCH = `${PRELUDE}
if redis.call('EXISTS', hash) == 0 then return 0 end
stamp(ARGV[1], principal_of(redis.call('HGET', hash, 'principal')), now_ms(), tonumber(ARGV[2]))
return 1
`;

/** ARGV: id. Also clears what an expired record of that id left in the index. */
const DELETE = `${PRELUDE}
local id = ARGV[1]
local principal = principal_of(redis.call('HGET', hash, 'principal'))
local existed = redis.call('DEL', hash)
local size = redis.call('HGET', sizes, id)
if size then
  redis.call('HDEL', sizes, id)
  add_bytes(-tonumber(size))
end
redis.call('ZREM', index, id)
if principal then redis.call('ZREM', owner_key(principal), id) end
return existed
`;

/** No ARGV. */
const COUNT = `${PRELUDE}
local now = now_ms()
purge(now, 100)
return redis.call('ZCOUNT', index, ms(now), '+inf')
`;

type Arg = string | number;

/** The scripts as commands of an ioredis client (EVALSHA, falling back to EVAL once per connection). */
export interface SessionCommands {
  conduitSessionCreate(index: string, sizes: string, bytes: string, hash: string, ...argv: Arg[]): Promise<string>;
  conduitSessionUpdate(index: string, sizes: string, bytes: string, hash: string, ...argv: Arg[]): Promise<number>;
  conduitSessionTouch(index: string, sizes: string, bytes: string, hash: string, ...argv: Arg[]): Promise<number>;
  conduitSessionDelete(index: string, sizes: string, bytes: string, hash: string, ...argv: Arg[]): Promise<number>;
  conduitSessionCount(index: string, sizes: string, bytes: string): Promise<number>;
}

const SCRIPTS: [name: keyof SessionCommands, lua: string, numberOfKeys: number][] = [
  ['conduitSessionCreate', CREATE, 4],
  ['conduitSessionUpdate', UPDATE, 4],
  ['conduitSessionTouch', TOUCH, 4],
  ['conduitSessionDelete', DELETE, 4],
  ['conduitSessionCount', COUNT, 3],
];

/** Defines the store's scripts on `redis` (once per client: every store on it shares them). */
export function sessionCommands(redis: Redis): SessionCommands {
  for (const [name, lua, numberOfKeys] of SCRIPTS)
    if (typeof (redis as unknown as Record<string, unknown>)[name] !== 'function')
      redis.defineCommand(name, { lua, numberOfKeys });
  return redis as unknown as SessionCommands;
}
