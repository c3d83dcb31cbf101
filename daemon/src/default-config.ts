/**
 * The `config.yaml` written for a new home (DESIGN §2, issue 5 "Generated config"): every key has
 * a default, so this file only spells out the command policy and retention with comments. It must
 * parse under `HoldfastConfig` (a unit test checks).
 */
export const DEFAULT_CONFIG_YAML = `# holdfast configuration (DESIGN §2). Written on first start; every key has a default.
# Workspaces are added by \`holdfast workspace register <path>\`.
#
# listen:            # holdfast serve --http
#   bind: 127.0.0.1
#   port: 8000
#
# shell:             # how session shells start (docs/sessions.md)
#   locale: auto     # auto (environment, else your configured locale, else C.UTF-8) | inherit | a name
#   rc_timeout_ms: 6000   # your rc files must reach a prompt within this, else they are skipped

security:
  # The command policy (docs/command-policy.md). Every command execute runs is parsed with a real
  # shell parser, commands inside $(…), backticks and here-documents included; a lone & and
  # dangling operators are always refused. Each command is judged deny → confirm → allow →
  # built-in read-only list → default.
  commands:
    # A command that matches no rule: allow | confirm | deny.
    # "allow" suits one person on their own machine. For anything shared, use: default: confirm
    default: allow
    # Refused, whatever the call says. Rules match the command as executed: /usr/bin/rm, "rm" and
    # \\rm are rm; -rf is also -r -f, -fr, -Rf or --recursive --force; ~, $HOME and the home's path
    # are one folder; sudo, env, nice, timeout, xargs, sh -c, su -c … are looked through.
    # Built in, whatever this list says: removing / or a system or home folder (rm -r, find -delete,
    # chmod/chown -R), writing a raw disk, killing every process.
    deny:
      - rm -rf /
      - rm -rf '/*'
      - rm -rf ~
      - mkfs
      - mkfs.*
      - mke2fs
      - mkswap
      - wipefs
      - blkdiscard
      - shutdown
      - reboot
      - poweroff
      - halt
      - systemctl poweroff
      - systemctl reboot
      - systemctl halt
      - systemctl kexec
      - init 0
      - init 6
      - telinit 0
      - telinit 6
      - systemctl *start *reboot*
      - systemctl *start *poweroff*
      - systemctl *start *halt*
      - systemctl *start *kexec*
      - systemctl *start ctrl-alt-del*
      - systemctl isolate *reboot*
      - systemctl isolate *poweroff*
      - systemctl isolate *halt*
      - systemctl soft-reboot
      - kexec -e
      - mkdosfs
      - mkntfs
      - mkexfatfs
      - sgdisk -Z
      - sgdisk --zap-all
      - cryptsetup luksFormat
      - nvme format
      - nvme sanitize
      - hdparm --security-erase
      - hdparm --security-erase-enhanced
    # Run only after the user confirms (execute answers waiting_confirmation first).
    # npm install also covers npm i / npm add; pip install also python3 -m pip install.
    # Partition tools are asked about even when they only list (fdisk -l): one rule, no guessing.
    # git clean / reset --hard / checkout -- . / restore . / stash -u throw away uncommitted work.
    confirm:
      - git push
      - git send-pack
      - git clean
      - git reset --hard
      - git checkout -- .
      - git restore .
      - git stash -u
      - git stash -a
      - git stash --include-untracked
      - git stash --all
      - git checkout -- :/
      - git restore :/
      - git checkout -f
      - git switch --discard-changes
      - git switch -f
      - docker
      - docker-compose
      - nerdctl
      - podman
      - npm install
      - npm ci
      - pnpm install
      - pnpm add
      - yarn install
      - yarn add
      - pip install
      - pip3 install
      - pip3.* install
      - uv pip install
      - fdisk
      - sfdisk
      - sgdisk
      - parted
      - systemctl isolate
      - systemctl rescue
      - systemctl emergency
    # Allowed without asking even when default is confirm or deny; matched strictly (the leading
    # arguments exactly as written), e.g. "npm test", "make build".
    allow: []
  # Confine every session shell and what it starts (docs/sandbox.md): off | auto | bwrap | landlock.
  # Any mode but off is a requirement: a session that cannot be confined is refused. The same keys
  # may be set per principal (exact name or a pattern such as "oauth:*").
  # sandbox:
  #   mode: auto
  #   network: off          # no network at all (bwrap) / no TCP (landlock)
  #   writable: [~/.npm, ~/.cache, ~/.cargo/registry, ~/go/pkg]
  #   principals:
  #     "oauth:*": { mode: auto, network: off }

retention:
  # Each kind of record ages out on its own clock, in days; 0 keeps that kind forever.
  # Kept whatever their age: running tasks, what an undelivered plan cites as evidence, and the
  # artifacts and events of live sessions. \`holdfast doctor\` shows what the next sweep removes.
  # Finished execution tasks (rows and their logs) and the log folders of ended sessions.
  task_days: 30
  # Events (the history \`holdfast observe\` replays) of ended sessions, and daemon-wide events.
  event_days: 30
  # Artifacts (snapshots in state/artifacts/) of ended sessions.
  artifact_days: 30
  # Delivered plans, and plans of ended sessions, counted from their last change.
  plan_days: 90
  # Step results of finished operations (operation_batch); the id then answers OPERATION_RESULT_EXPIRED.
  operation_days: 7
  # How often a sweep runs, seconds.
  sweep_interval_s: 21600

# Upstream MCP servers every session may use through mcp_tool (docs/extensions.md), in the format
# of Claude Code's .mcp.json; \${VAR} and \${VAR:-default} come from holdfastd's environment.
# A workspace's own .mcp.json servers need \`holdfast mcp approve <workspace> <name>\` first.
# mcp_servers:
#   memory:
#     command: npx
#     args: [-y, "@modelcontextprotocol/server-memory"]
#   tracker:
#     type: http
#     url: https://tracker.example/mcp
#     headers: { Authorization: "Bearer \${TRACKER_TOKEN}" }
`;
