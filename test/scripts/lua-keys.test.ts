/**
 * Every key a script touches arrives in KEYS (design principle 3): Redis Cluster rejects cross-slot
 * keys and Dragonfly undeclared ones, and neither shows up against a plain Redis. So the scripts in
 * lua/ are checked statically, and the checker is itself tested on scripts that break the rule.
 */
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import * as path from "path";
import { analyseScript, checkScript, documentedKeys, uncheckedAfterWrite } from "../support/lua-key-check";
import { withShared } from "../../lib/scripts/script-files";
import { runsOn } from "../support/targets";

runsOn("single");

/** lua/ of this package (the test runs from build/test/). */
const LUA_DIR = path.resolve(__dirname, "../../../lua");

/** A script body inside a `<name>-<keys>.lua` file, for the self-test. */
function problemsOf(source: string, fileName = "example-2.lua"): string[] {
  return checkScript(fileName, source);
}

describe("Lua scripts take every key from KEYS", () => {
  describe("the checker", () => {
    it("lets a -n script walk its keys by a loop index, and only a -n script", () => {
      const source = `
        local rcall = redis.call
        for i = 2, #KEYS, 2 do
          local queueSet = KEYS[i]
          local queueHash = KEYS[i + 1]
          rcall("ZCARD", queueSet)
          rcall("HGET", queueHash, "vt")
        end
        return rcall("SMEMBERS", KEYS[1])
      `;
      expect(problemsOf(source, "example-n.lua")).to.deep.equal([]);
      expect(problemsOf(source, "example-3.lua").join("\n")).to.match(/non-literal/);
      expect(problemsOf('redis.call("GET", KEYS[i .. "x"])', "example-n.lua").join("\n")).to.match(/non-literal/);
    });

    it("accepts a script that follows the rules", () => {
      const source = `
        --[[ A header that mentions redis.call("GET", "rsmq:QUEUES") and KEYS[9]: comments are not code. ]]
        local rcall = redis.call
        local queueSet, queueHash = KEYS[1], KEYS[2]
        local channel, count = ARGV[1], tonumber(ARGV[2])
        local time = rcall("TIME")
        local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local note = "KEYS[7] .. in a string"  -- and in a comment: rcall("DEL", "x" .. y)
        rcall("ZADD", queueSet, string.format("%d", nowMs + 5000), ARGV[3])
        rcall("ZRANGE", queueSet, 0, -1)
        rcall("ZRANGEBYSCORE", queueSet, "-inf", string.format("%d", nowMs), "LIMIT", 0, count)
        rcall("ZCOUNT", queueSet, "(" .. string.format("%d", nowMs), "+inf")
        rcall("HINCRBY", queueHash, ARGV[3] .. ":rc", 1)
        redis.call("HSET", KEYS[2], "modified", time[1])
        redis.pcall("DEL", queueHash, KEYS[1])
        if channel ~= "" then
          rcall("PUBLISH", channel, rcall("ZCARD", queueSet))
        end
        for i = 4, #ARGV, 2 do
          rcall("HSET", queueHash, ARGV[i], ARGV[i + 1])
        end
        return note
      `;
      expect(problemsOf(source)).to.deep.equal([]);
    });

    const bad: Array<[string, string, RegExp, string?]> = [
      ["a key built with ..", 'redis.call("HGET", KEYS[1] .. ":Q", "vt")', /concatenation/],
      ["a local key built with ..", 'local hash = KEYS[1] .. ":Q"\nredis.call("HGET", hash, "vt")', /hash is built by \.\. concatenation/],
      ["a string-literal key", 'redis.call("SMEMBERS", "rsmq:QUEUES")', /string literal used as a key/],
      ["KEYS[3] in a -2 file", 'redis.call("GET", KEYS[3])', /KEYS\[3\] is beyond the 2 keys/],
      ["KEYS[0]", 'redis.call("GET", KEYS[0])', /KEYS\[0\] is beyond/],
      ["a computed KEYS index", 'local i = 1\nredis.call("GET", KEYS[i])', /non-literal/],
      ["a key from ARGV", 'redis.call("ZADD", ARGV[1], 1, "m")', /not KEYS\[n\]/],
      ["a key local reassigned", 'local q = KEYS[1]\nq = ARGV[1]\nredis.call("ZCARD", q)', /not a local assigned directly \(and only\)/],
      ["a second DEL argument that is no key", 'redis.call("DEL", KEYS[1], ARGV[1])', /DEL argument 2/],
      ["a bad key through an alias", 'local rcall = redis.call\nrcall("ZCARD", "x")', /string literal/],
      ["a command the checker does not know", 'redis.call("ZUNIONSTORE", KEYS[1], 2, KEYS[1], KEYS[2])', /ZUNIONSTORE is unknown/],
      ["a command name that is not a literal", 'local c = "GET"\nredis.call(c, KEYS[1])', /not a string literal/],
      ["redis.call handed on", 'pcall(redis.call, "GET", "x")', /other than by calling it directly/],
      ["the whole KEYS table", 'redis.call("DEL", unpack(KEYS))', /KEYS used other than as KEYS\[n\]/],
      ["tostring of a number", 'local t = redis.call("TIME")\nredis.call("HSET", KEYS[2], "modified", tostring(t[1] * 1))', /tostring/],
      ["arithmetic handed to redis.call", 'local t = redis.call("TIME")\nredis.call("ZADD", KEYS[1], t[1] * 1000, ARGV[1])', /arithmetic/],
      ["math.floor handed to redis.call", 'redis.call("ZADD", KEYS[1], math.floor(ARGV[2] / 2), ARGV[1])', /math\.\* result/],
      [
        "a computed number handed to redis.call",
        'local due = ARGV[2] * 1000\nredis.call("ZADD", KEYS[1], due, ARGV[1])',
        /computed number due/,
      ],
      ["a key used as a value", 'redis.call("ZADD", KEYS[1], KEYS[2], ARGV[1])', /KEYS\) used as a value/],
      [
        "a computed number concatenated",
        'local due = ARGV[2] * 1000\nredis.call("ZCOUNT", KEYS[1], "(" .. due, "+inf")',
        /computed number due/,
      ],
    ];
    for (const [what, source, expected] of bad) {
      it(`reports ${what}`, () => {
        const problems = problemsOf(source);
        expect(
          problems.some((problem) => expected.test(problem)),
          problems.join("\n") || "(no problem reported)",
        ).to.equal(true);
      });
    }

    it("rejects each of rsmq 0.12.4's own scripts (keys built with .., timestamps passed as KEYS)", () => {
      const rsmqSource = readFileSync(require.resolve("rsmq"), "utf8");
      const scripts = [...rsmqSource.matchAll(/const script_(\w+) = `([^`]*)`/g)];
      expect(scripts.map((match) => match[1])).to.have.members(["popMessage", "receiveMessage", "changeMessageVisibility"]);
      for (const [, name, source] of scripts) {
        // Named with as many keys as the script reads, so only the real faults are left to find.
        const keyCount = Math.max(...[...source.matchAll(/KEYS\[(\d+)\]/g)].map((match) => Number(match[1])));
        const problems = checkScript(`${name}-${keyCount}.lua`, source);
        expect(problems, name).to.not.be.empty;
        expect(
          problems.some((problem) => /concatenation|used as a value/.test(problem)),
          problems.join("\n"),
        ).to.equal(true);
      }
    });

    it("reports file names that are not <operation>-<keys>.lua", () => {
      for (const name of ["receive_message-2.lua", "receiveMessage.lua", "receiveMessage-two.lua", "receiveMessage-2.txt"]) {
        expect(checkScript(name, "return 1"), name).to.have.length(1);
      }
      expect(checkScript("receiveMessage-2.lua", "return 1")).to.deep.equal([]);
    });

    it("finds a command a script may run after its first write without naming it in a check before it", () => {
      const unchecked = `
        local rcall = redis.call
        local queueSet, queueHash = KEYS[1], KEYS[2]
        rcall("HMGET", queueHash, "vt")
        rcall("ZADD", queueSet, 1, ARGV[1])
        rcall("HSET", queueHash, ARGV[1], ARGV[2])
        rcall("HINCRBY", queueHash, "totalsent", 1)
        rcall("HMGET", queueHash, "vt")
        redis.pcall("PUBLISH", ARGV[3], 1)
      `;
      expect(uncheckedAfterWrite("example-2.lua", unchecked)).to.deep.equal(["line 5+: HSET", "line 5+: HINCRBY"]);
      const partly = unchecked.replace('rcall("ZADD"', 'local refused = refusedCommand("hset")\n        rcall("ZADD"');
      expect(uncheckedAfterWrite("example-2.lua", partly)).to.deep.equal(["line 6+: HINCRBY"]);
      const checked = unchecked.replace('rcall("ZADD"', 'local refused = refusedCommand("hset", "hincrby")\n        rcall("ZADD"');
      expect(uncheckedAfterWrite("example-2.lua", checked)).to.deep.equal([]);
      const checkedLate = unchecked.replace('rcall("HSET"', 'local refused = refusedCommand("hset", "hincrby")\n        rcall("HSET"');
      expect(uncheckedAfterWrite("example-2.lua", checkedLate)).to.deep.equal(["line 5+: HSET", "line 5+: HINCRBY"]);
      expect(
        uncheckedAfterWrite("example-2.lua", 'redis.call("ZADD", KEYS[1], 1, "a")\nredis.call("ZADD", KEYS[1], 2, "b")'),
      ).to.deep.equal([]);
    });

    it("checks a local function's writes by the refusedCommand in its own body", () => {
      const script = `
        local rcall = redis.call
        local function sweep()
          if refusedCommand("hdel") then return end
          rcall("HDEL", KEYS[2], "a")
        end
        rcall("HMGET", KEYS[2], "vt")
        local refused = refusedCommand("hset")
        rcall("ZADD", KEYS[1], 1, "a")
        rcall("HSET", KEYS[2], "a", "b")
      `;
      expect(uncheckedAfterWrite("example-2.lua", script)).to.deep.equal([]);
      const unguarded = `
        local rcall = redis.call
        local function sweep()
          rcall("ZADD", KEYS[1], 2, "b")
          rcall("HDEL", KEYS[2], "a")
        end
      `;
      expect(uncheckedAfterWrite("example-2.lua", unguarded)).to.deep.equal(["line 4+: HDEL"]);
    });

    const badChecks: Array<[string, string, RegExp]> = [
      ["a key among the names", 'local r = refusedCommand("hset", KEYS[2])', /argument 2 is not a known command name/],
      ["a name it does not know", 'local r = refusedCommand("hsett")', /argument 1 is not a known command name/],
      ["a command named twice", 'local r = refusedCommand("hset", "hdel") or refusedCommand("HSET")', /checks HSET more than once/],
    ];
    for (const [what, source, expected] of badChecks) {
      it(`reports ${what} in refusedCommand`, () => {
        const problems = problemsOf(source);
        expect(
          problems.some((problem) => expected.test(problem)),
          problems.join("\n") || "(no problem reported)",
        ).to.equal(true);
      });
    }

    it("reads the KEYS lines of a header comment", () => {
      expect(documentedKeys("--[[\n  KEYS[1] a\n  KEYS[2] b\n  ARGV[1] c\n]]\nreturn 1")).to.deep.equal([1, 2]);
    });
  });

  describe("lua/", () => {
    const files = readdirSync(LUA_DIR)
      .filter((name) => name.endsWith(".lua"))
      .sort();

    it("holds the scripts and shared/, and nothing else", () => {
      expect(files).to.not.be.empty;
      expect(readdirSync(LUA_DIR).filter((name) => !name.endsWith(".lua"))).to.deep.equal(["shared"]);
    });

    it("shares Lua that names no key itself: its calls touch the keys a script hands its functions", () => {
      // Each script below is checked with the shared Lua it calls put before it, as Redis runs it.
      const shared = readdirSync(path.join(LUA_DIR, "shared"));
      expect(shared).to.not.be.empty;
      for (const file of shared) {
        expect(file, file).to.match(/\.lua$/);
        const text = readFileSync(path.join(LUA_DIR, "shared", file), "utf8");
        expect(text, file).to.not.match(/KEYS\[|ARGV\[/);
      }
    });

    for (const file of files) {
      describe(file, () => {
        const own = readFileSync(path.join(LUA_DIR, file), "utf8");
        // As Redis runs it: with the shared Lua it calls put before it.
        const source = withShared(LUA_DIR, own);

        it("passes every key in KEYS and formats integers safely", () => {
          expect(checkScript(file, source)).to.deep.equal([]);
        });

        it("is read completely: the check sees every Redis call in it", () => {
          // A call the tokenizer skipped would be a call left unchecked.
          const code = source.replace(/--\[(=*)\[[\s\S]*?\]\1\]/g, "").replace(/--.*$/gm, "");
          const calls = code.match(/\b(redis\.p?call|rcall)\s*\(/g) ?? [];
          const { commands } = analyseScript(file, source);
          // The runner's rights check asks redis.acl_check_cmd only: the one script without a call.
          if (file !== "commandsRefused-0.lua") expect(commands).to.not.be.empty;
          expect(commands).to.have.length(calls.length);
        });

        it("names in refusedCommand, before its first write, every command it may run after it", () => {
          expect(uncheckedAfterWrite(file, source)).to.deep.equal([]);
        });

        it("documents exactly the KEYS its file name promises", () => {
          // A -n script takes any number: its header documents its fixed first keys (KEYS[1] up to
          // KEYS[k]) and how the rest repeat (a KEYS[...] line that is not a plain number).
          if (file.endsWith("-n.lua")) {
            const fixed = documentedKeys(own);
            expect(fixed).to.deep.equal(Array.from({ length: Math.max(fixed.length, 1) }, (_, k) => k + 1));
            expect(own).to.match(/^\s*KEYS\[(?!\d+\])[^\]]+\]/m);
            return;
          }
          const keyCount = Number(/-(\d+)\.lua$/.exec(file)?.[1] ?? NaN);
          expect(documentedKeys(own)).to.deep.equal(Array.from({ length: keyCount }, (_, k) => k + 1));
        });
      });
    }
  });
});
