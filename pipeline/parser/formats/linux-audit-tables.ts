// Tables of the Linux audit format (linux-audit.ts): record type names and
// numbers (include/uapi/linux/audit.h and libaudit.h of the audit userspace),
// how each record type maps to ECS, and the syscall numbers of the
// architectures most hosts run, for SYSCALL records that do not carry
// auditd's interpreted SYSCALL= name.
import { lookupTable } from '../../../lib/lookup-table.js';

/**
 * Record type numbers by name. The kernel's printk form ("audit: type=1400
 * audit(...)") and rsyslog forwarders give the number; auditd the name, or
 * "UNKNOWN[1334]" for a number it does not know.
 */
const TYPE_NUMBERS = lookupTable<number>({
  USER: 1005,
  LOGIN: 1006,
  USER_AUTH: 1100,
  USER_ACCT: 1101,
  USER_MGMT: 1102,
  CRED_ACQ: 1103,
  CRED_DISP: 1104,
  USER_START: 1105,
  USER_END: 1106,
  USER_AVC: 1107,
  USER_CHAUTHTOK: 1108,
  USER_ERR: 1109,
  CRED_REFR: 1110,
  USYS_CONFIG: 1111,
  USER_LOGIN: 1112,
  USER_LOGOUT: 1113,
  ADD_USER: 1114,
  DEL_USER: 1115,
  ADD_GROUP: 1116,
  DEL_GROUP: 1117,
  DAC_CHECK: 1118,
  CHGRP_ID: 1119,
  TEST: 1120,
  TRUSTED_APP: 1121,
  USER_SELINUX_ERR: 1122,
  USER_CMD: 1123,
  USER_TTY: 1124,
  CHUSER_ID: 1125,
  GRP_AUTH: 1126,
  SYSTEM_BOOT: 1127,
  SYSTEM_SHUTDOWN: 1128,
  SYSTEM_RUNLEVEL: 1129,
  SERVICE_START: 1130,
  SERVICE_STOP: 1131,
  GRP_MGMT: 1132,
  GRP_CHAUTHTOK: 1133,
  MAC_CHECK: 1134,
  ACCT_LOCK: 1135,
  ACCT_UNLOCK: 1136,
  USER_DEVICE: 1137,
  SOFTWARE_UPDATE: 1138,
  DAEMON_START: 1200,
  DAEMON_END: 1201,
  DAEMON_ABORT: 1202,
  DAEMON_CONFIG: 1203,
  DAEMON_RECONFIG: 1204,
  DAEMON_ROTATE: 1205,
  DAEMON_RESUME: 1206,
  DAEMON_ACCEPT: 1207,
  DAEMON_CLOSE: 1208,
  DAEMON_ERR: 1209,
  SYSCALL: 1300,
  PATH: 1302,
  IPC: 1303,
  SOCKETCALL: 1304,
  CONFIG_CHANGE: 1305,
  SOCKADDR: 1306,
  CWD: 1307,
  EXECVE: 1309,
  IPC_SET_PERM: 1311,
  MQ_OPEN: 1312,
  MQ_SENDRECV: 1313,
  MQ_NOTIFY: 1314,
  MQ_GETSETATTR: 1315,
  KERNEL_OTHER: 1316,
  FD_PAIR: 1317,
  OBJ_PID: 1318,
  TTY: 1319,
  EOE: 1320,
  BPRM_FCAPS: 1321,
  CAPSET: 1322,
  MMAP: 1323,
  NETFILTER_PKT: 1324,
  NETFILTER_CFG: 1325,
  SECCOMP: 1326,
  PROCTITLE: 1327,
  FEATURE_CHANGE: 1328,
  REPLACE: 1329,
  KERN_MODULE: 1330,
  FANOTIFY: 1331,
  TIME_INJOFFSET: 1332,
  TIME_ADJNTPVAL: 1333,
  BPF: 1334,
  EVENT_LISTENER: 1335,
  URINGOP: 1336,
  OPENAT2: 1337,
  DM_CTRL: 1338,
  DM_EVENT: 1339,
  AVC: 1400,
  SELINUX_ERR: 1401,
  AVC_PATH: 1402,
  MAC_POLICY_LOAD: 1403,
  MAC_STATUS: 1404,
  MAC_CONFIG_CHANGE: 1405,
  MAC_UNLBL_ALLOW: 1406,
  MAC_CIPSOV4_ADD: 1407,
  MAC_CIPSOV4_DEL: 1408,
  MAC_MAP_ADD: 1409,
  MAC_MAP_DEL: 1410,
  MAC_IPSEC_ADDSA: 1411,
  MAC_IPSEC_DELSA: 1412,
  MAC_IPSEC_ADDSPD: 1413,
  MAC_IPSEC_DELSPD: 1414,
  MAC_IPSEC_EVENT: 1415,
  MAC_UNLBL_STCADD: 1416,
  MAC_UNLBL_STCDEL: 1417,
  MAC_CALIPSO_ADD: 1418,
  MAC_CALIPSO_DEL: 1419,
  AA: 1500,
  APPARMOR_AUDIT: 1501,
  APPARMOR_ALLOWED: 1502,
  APPARMOR_DENIED: 1503,
  APPARMOR_HINT: 1504,
  APPARMOR_STATUS: 1505,
  APPARMOR_ERROR: 1506,
  ANOM_PROMISCUOUS: 1700,
  ANOM_ABEND: 1701,
  ANOM_LINK: 1702,
  ANOM_CREAT: 1703,
  INTEGRITY_DATA: 1800,
  INTEGRITY_METADATA: 1801,
  INTEGRITY_STATUS: 1802,
  INTEGRITY_HASH: 1803,
  INTEGRITY_PCR: 1804,
  INTEGRITY_RULE: 1805,
  INTEGRITY_EVM_XATTR: 1806,
  INTEGRITY_POLICY_RULE: 1807,
  KERNEL: 2000,
  ANOM_LOGIN_FAILURES: 2100,
  ANOM_LOGIN_TIME: 2101,
  ANOM_LOGIN_SESSIONS: 2102,
  ANOM_LOGIN_ACCT: 2103,
  ANOM_LOGIN_LOCATION: 2104,
  ANOM_MAX_DAC: 2105,
  ANOM_MAX_MAC: 2106,
  ANOM_AMTU_FAIL: 2107,
  ANOM_RBAC_FAIL: 2108,
  ANOM_RBAC_INTEGRITY_FAIL: 2109,
  ANOM_CRYPTO_FAIL: 2110,
  ANOM_ACCESS_FS: 2111,
  ANOM_EXEC: 2112,
  ANOM_MK_EXEC: 2113,
  ANOM_ADD_ACCT: 2114,
  ANOM_DEL_ACCT: 2115,
  ANOM_MOD_ACCT: 2116,
  ANOM_ROOT_TRANS: 2117,
  ANOM_LOGIN_SERVICE: 2118,
  ANOM_LOGIN_ROOT: 2119,
  ANOM_ORIGIN_FAILURES: 2120,
  ANOM_SESSION: 2121,
  RESP_ANOMALY: 2200,
  RESP_ALERT: 2201,
  RESP_KILL_PROC: 2202,
  RESP_TERM_ACCESS: 2203,
  RESP_ACCT_REMOTE: 2204,
  RESP_ACCT_LOCK_TIMED: 2205,
  RESP_ACCT_UNLOCK_TIMED: 2206,
  RESP_ACCT_LOCK: 2207,
  RESP_TERM_LOCK: 2208,
  RESP_SEBOOL: 2209,
  RESP_EXEC: 2210,
  RESP_SINGLE: 2211,
  RESP_HALT: 2212,
  RESP_ORIGIN_BLOCK: 2213,
  RESP_ORIGIN_BLOCK_TIMED: 2214,
  RESP_ORIGIN_UNBLOCK_TIMED: 2215,
  USER_ROLE_CHANGE: 2300,
  ROLE_ASSIGN: 2301,
  ROLE_REMOVE: 2302,
  LABEL_OVERRIDE: 2303,
  LABEL_LEVEL_CHANGE: 2304,
  USER_LABELED_EXPORT: 2305,
  USER_UNLABELED_EXPORT: 2306,
  DEV_ALLOC: 2307,
  DEV_DEALLOC: 2308,
  FS_RELABEL: 2309,
  USER_MAC_POLICY_LOAD: 2310,
  ROLE_MODIFY: 2311,
  USER_MAC_CONFIG_CHANGE: 2312,
  USER_MAC_STATUS: 2313,
  CRYPTO_TEST_USER: 2400,
  CRYPTO_PARAM_CHANGE_USER: 2401,
  CRYPTO_LOGIN: 2402,
  CRYPTO_LOGOUT: 2403,
  CRYPTO_KEY_USER: 2404,
  CRYPTO_FAILURE_USER: 2405,
  CRYPTO_REPLAY_USER: 2406,
  CRYPTO_SESSION: 2407,
  CRYPTO_IKE_SA: 2408,
  CRYPTO_IPSEC_SA: 2409,
  VIRT_CONTROL: 2500,
  VIRT_RESOURCE: 2501,
  VIRT_MACHINE_ID: 2502,
  VIRT_INTEGRITY_CHECK: 2503,
  VIRT_CREATE: 2504,
  VIRT_DESTROY: 2505,
  VIRT_MIGRATE_IN: 2506,
  VIRT_MIGRATE_OUT: 2507,
});

const TYPE_NAMES = new Map(Object.entries(TYPE_NUMBERS).map(([name, n]) => [String(n), name]));

/** The record type's name from what the line says: a name, a number ("1400") or "UNKNOWN[1334]". */
export function recordTypeName(text: string): string {
  const c = text.charCodeAt(0);
  if (c >= 48 && c <= 57) return TYPE_NAMES.get(text) ?? `UNKNOWN[${text}]`;
  if (text.startsWith('UNKNOWN[') && text.endsWith(']')) return TYPE_NAMES.get(text.slice(8, -1)) ?? text;
  return text;
}

/** Whether the name is a record type of the audit userspace (journald writes it first, with no number beside it). */
export function isKnownRecordType(name: string): boolean {
  return TYPE_NUMBERS[name] !== undefined;
}

/**
 * Whether records of this type stand alone: user-space messages (1100-1299,
 * 2100-2999) are sent one record per event, with a serial of their own and
 * no EOE. Kernel records (1300-1999: syscall, MAC, anomaly, integrity) may
 * come with more records of their serial and an EOE, so they are joined.
 * A type we do not know is treated as a kernel one: joining costs a wait,
 * not a wrong result.
 */
export function isStandaloneRecord(type: string): boolean {
  const n = TYPE_NUMBERS[type];
  return n !== undefined && ((n >= 1100 && n < 1300) || (n >= 2100 && n < 3000) || n === 1005);
}

export interface EcsClass {
  category?: string[];
  type?: string[];
  /** event.kind when not "event". */
  kind?: string;
}

// Why these categories (ECS 8 allowed values; event.type "denied" exists only
// under intrusion_detection, network and api):
// - PAM's authentication steps (USER_AUTH, USER_ACCT, USER_ERR, GRP_AUTH,
//   CRED_*) are authentication/info: a check or a credential handed out, not a
//   session. USER_ACCT is PAM's account check, still part of logging in.
// - Sessions: USER_LOGIN is the end of a login (authenticated, session
//   opened), so authentication and session start; USER_START/USER_END and
//   USER_LOGOUT are PAM's session open/close; LOGIN is the kernel setting a
//   session's login uid, the start of a session too.
// - Account and group management (ADD_/DEL_USER, USER_MGMT, USER_CHAUTHTOK,
//   ACCT_LOCK/UNLOCK, CHUSER_ID, groups, roles) is iam, with user or group.
// - Policy and audit configuration (CONFIG_CHANGE, MAC_POLICY_LOAD,
//   MAC_STATUS, MAC_CONFIG_CHANGE, NETFILTER_CFG, DAEMON_CONFIG,
//   USYS_CONFIG) is configuration/change.
// - The audit daemon and systemd units starting and stopping (DAEMON_START,
//   DAEMON_END, DAEMON_ABORT, SERVICE_START/STOP) are processes starting and
//   ending: ECS has no service category, and a unit's state is its processes'.
// - SYSTEM_BOOT/SHUTDOWN/RUNLEVEL concern the whole host.
// - MAC denials (AVC, USER_AVC, SELINUX_ERR, APPARMOR_DENIED): SELinux and
//   AppArmor are host-based prevention, and "denied" is an ECS type only of
//   intrusion_detection (and network, api); the verdict is set per record
//   (linux-audit.ts: avc granted, AppArmor ALLOWED in complain mode).
// - ANOM_* are the kernel's and auditd's own anomaly detections: alerts
//   (event.kind), intrusion_detection, with the category of what they watch.
// - Kernel modules and BPF programs are code loaded into the kernel: driver.
// - EXECVE and USER_CMD (a sudo command) start a process; PATH and CWD name
//   files; SYSCALL's class depends on the syscall (SYSCALLS below).
const CLASSES = lookupTable<EcsClass>({
  USER_AUTH: { category: ['authentication'], type: ['info'] },
  USER_ACCT: { category: ['authentication'], type: ['info'] },
  USER_ERR: { category: ['authentication'], type: ['info'] },
  GRP_AUTH: { category: ['authentication'], type: ['info'] },
  CRED_ACQ: { category: ['authentication'], type: ['info'] },
  CRED_DISP: { category: ['authentication'], type: ['info'] },
  CRED_REFR: { category: ['authentication'], type: ['info'] },
  USER_LOGIN: { category: ['authentication', 'session'], type: ['start'] },
  USER_LOGOUT: { category: ['session'], type: ['end'] },
  USER_START: { category: ['session'], type: ['start'] },
  USER_END: { category: ['session'], type: ['end'] },
  LOGIN: { category: ['session'], type: ['start'] },
  CRYPTO_LOGIN: { category: ['authentication', 'session'], type: ['start'] },
  CRYPTO_LOGOUT: { category: ['session'], type: ['end'] },
  ADD_USER: { category: ['iam'], type: ['user', 'creation'] },
  DEL_USER: { category: ['iam'], type: ['user', 'deletion'] },
  USER_MGMT: { category: ['iam'], type: ['user', 'change'] },
  USER_CHAUTHTOK: { category: ['iam'], type: ['user', 'change'] },
  ACCT_LOCK: { category: ['iam'], type: ['user', 'change'] },
  ACCT_UNLOCK: { category: ['iam'], type: ['user', 'change'] },
  CHUSER_ID: { category: ['iam'], type: ['user', 'change'] },
  ADD_GROUP: { category: ['iam'], type: ['group', 'creation'] },
  DEL_GROUP: { category: ['iam'], type: ['group', 'deletion'] },
  GRP_MGMT: { category: ['iam'], type: ['group', 'change'] },
  GRP_CHAUTHTOK: { category: ['iam'], type: ['group', 'change'] },
  CHGRP_ID: { category: ['iam'], type: ['group', 'change'] },
  USER_ROLE_CHANGE: { category: ['iam'], type: ['user', 'change'] },
  ROLE_ASSIGN: { category: ['iam'], type: ['user', 'change'] },
  ROLE_REMOVE: { category: ['iam'], type: ['user', 'change'] },
  ROLE_MODIFY: { category: ['iam'], type: ['change'] },
  USER_CMD: { category: ['process'], type: ['start'] },
  USER_TTY: { category: ['process'], type: ['info'] },
  TTY: { category: ['process'], type: ['info'] },
  EXECVE: { category: ['process'], type: ['start'] },
  PROCTITLE: { category: ['process'], type: ['info'] },
  PATH: { category: ['file'], type: ['info'] },
  CWD: { category: ['file'], type: ['info'] },
  CONFIG_CHANGE: { category: ['configuration'], type: ['change'] },
  FEATURE_CHANGE: { category: ['configuration'], type: ['change'] },
  USYS_CONFIG: { category: ['configuration'], type: ['change'] },
  DAEMON_CONFIG: { category: ['configuration'], type: ['change'] },
  DAEMON_RECONFIG: { category: ['configuration'], type: ['change'] },
  NETFILTER_CFG: { category: ['configuration'], type: ['change'] },
  MAC_POLICY_LOAD: { category: ['configuration'], type: ['change'] },
  MAC_STATUS: { category: ['configuration'], type: ['change'] },
  MAC_CONFIG_CHANGE: { category: ['configuration'], type: ['change'] },
  USER_MAC_POLICY_LOAD: { category: ['configuration'], type: ['change'] },
  USER_MAC_CONFIG_CHANGE: { category: ['configuration'], type: ['change'] },
  USER_MAC_STATUS: { category: ['configuration'], type: ['change'] },
  APPARMOR_STATUS: { category: ['configuration'], type: ['change'] },
  SOFTWARE_UPDATE: { category: ['package'], type: ['installation'] },
  TIME_INJOFFSET: { category: ['host'], type: ['change'] },
  TIME_ADJNTPVAL: { category: ['host'], type: ['change'] },
  DAEMON_START: { category: ['process'], type: ['start'] },
  DAEMON_END: { category: ['process'], type: ['end'] },
  DAEMON_ABORT: { category: ['process'], type: ['end'] },
  DAEMON_ROTATE: { category: ['process'], type: ['info'] },
  DAEMON_RESUME: { category: ['process'], type: ['info'] },
  DAEMON_ERR: { category: ['process'], type: ['info'] },
  SERVICE_START: { category: ['process'], type: ['start'] },
  SERVICE_STOP: { category: ['process'], type: ['end'] },
  SYSTEM_BOOT: { category: ['host'], type: ['start'] },
  SYSTEM_SHUTDOWN: { category: ['host'], type: ['end'] },
  SYSTEM_RUNLEVEL: { category: ['host'], type: ['change'] },
  AVC: { category: ['intrusion_detection'], type: ['denied'] },
  USER_AVC: { category: ['intrusion_detection'], type: ['denied'] },
  SELINUX_ERR: { category: ['intrusion_detection'], type: ['denied'] },
  USER_SELINUX_ERR: { category: ['intrusion_detection'], type: ['denied'] },
  APPARMOR_DENIED: { category: ['intrusion_detection'], type: ['denied'] },
  APPARMOR_ALLOWED: { category: ['intrusion_detection'], type: ['allowed'] },
  APPARMOR_AUDIT: { category: ['intrusion_detection'], type: ['info'] },
  APPARMOR_HINT: { category: ['intrusion_detection'], type: ['info'] },
  SECCOMP: { category: ['process'], type: ['info'] },
  KERN_MODULE: { category: ['driver'], type: ['start'] },
  BPF: { category: ['driver'], type: ['change'] },
  ANOM_PROMISCUOUS: { category: ['intrusion_detection', 'host'], type: ['info', 'change'], kind: 'alert' },
  ANOM_ABEND: { category: ['intrusion_detection', 'process'], type: ['info', 'end'], kind: 'alert' },
  ANOM_LINK: { category: ['intrusion_detection', 'file'], type: ['info', 'access'], kind: 'alert' },
  ANOM_CREAT: { category: ['intrusion_detection', 'file'], type: ['info', 'creation'], kind: 'alert' },
  ANOM_LOGIN_FAILURES: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_LOGIN_TIME: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_LOGIN_SESSIONS: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_LOGIN_ACCT: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_LOGIN_LOCATION: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_LOGIN_SERVICE: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_LOGIN_ROOT: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_ORIGIN_FAILURES: { category: ['intrusion_detection', 'authentication'], type: ['info'], kind: 'alert' },
  ANOM_SESSION: { category: ['intrusion_detection', 'session'], type: ['info'], kind: 'alert' },
  ANOM_ADD_ACCT: { category: ['intrusion_detection', 'iam'], type: ['info', 'user', 'creation'], kind: 'alert' },
  ANOM_DEL_ACCT: { category: ['intrusion_detection', 'iam'], type: ['info', 'user', 'deletion'], kind: 'alert' },
  ANOM_MOD_ACCT: { category: ['intrusion_detection', 'iam'], type: ['info', 'user', 'change'], kind: 'alert' },
  ANOM_ROOT_TRANS: { category: ['intrusion_detection', 'iam'], type: ['info', 'change'], kind: 'alert' },
  ANOM_EXEC: { category: ['intrusion_detection', 'process'], type: ['info', 'start'], kind: 'alert' },
  ANOM_MK_EXEC: { category: ['intrusion_detection', 'file'], type: ['info', 'change'], kind: 'alert' },
  ANOM_ACCESS_FS: { category: ['intrusion_detection', 'file'], type: ['info', 'access'], kind: 'alert' },
});

/** Any other ANOM_ type: an anomaly auditd or the kernel flagged. */
const ANOMALY: EcsClass = { category: ['intrusion_detection'], type: ['info'], kind: 'alert' };

export function recordClass(type: string): EcsClass | undefined {
  return CLASSES[type] ?? (type.startsWith('ANOM_') ? ANOMALY : undefined);
}

/** auditd's arch= values (AUDIT_ARCH_*) to host.architecture. */
export const ARCHITECTURES = lookupTable<string>({
  c000003e: 'x86_64',
  '40000003': 'i386',
  c00000b7: 'aarch64',
  '40000028': 'armeb',
  c0000028: 'arm',
  '80000015': 'ppc64',
  c0000015: 'ppc64le',
  '80000016': 's390x',
  c00000f3: 'riscv64',
});

/**
 * The syscalls a security analyst looks for, by number per architecture
 * (x86_64 from arch/x86/entry/syscalls/syscall_64.tbl, i386 from
 * syscall_32.tbl, aarch64 and riscv64 from the generic unistd.h). A number
 * not listed leaves the name to auditd's interpreted SYSCALL= field.
 */
const X86_64 = lookupTable<string>({
  '0': 'read', '1': 'write', '2': 'open', '3': 'close', '9': 'mmap', '10': 'mprotect', '21': 'access', '22': 'pipe',
  '32': 'dup', '41': 'socket', '42': 'connect', '43': 'accept', '44': 'sendto', '45': 'recvfrom', '46': 'sendmsg', '47': 'recvmsg',
  '49': 'bind', '50': 'listen', '56': 'clone', '57': 'fork', '58': 'vfork', '59': 'execve', '60': 'exit', '62': 'kill',
  '76': 'truncate', '77': 'ftruncate', '82': 'rename', '83': 'mkdir', '84': 'rmdir', '85': 'creat', '86': 'link', '87': 'unlink',
  '88': 'symlink', '90': 'chmod', '91': 'fchmod', '92': 'chown', '93': 'fchown', '94': 'lchown', '101': 'ptrace',
  '105': 'setuid', '106': 'setgid', '113': 'setreuid', '114': 'setregid', '116': 'setgroups', '117': 'setresuid', '119': 'setresgid',
  '122': 'setfsuid', '123': 'setfsgid', '126': 'capset', '133': 'mknod', '135': 'personality', '155': 'pivot_root', '157': 'prctl',
  '159': 'adjtimex', '161': 'chroot', '164': 'settimeofday', '165': 'mount', '166': 'umount2', '167': 'swapon', '169': 'reboot',
  '170': 'sethostname', '171': 'setdomainname', '175': 'init_module', '176': 'delete_module', '188': 'setxattr', '189': 'lsetxattr',
  '190': 'fsetxattr', '197': 'removexattr', '198': 'lremovexattr', '199': 'fremovexattr', '200': 'tkill', '227': 'clock_settime',
  '231': 'exit_group', '234': 'tgkill', '257': 'openat', '258': 'mkdirat', '259': 'mknodat', '260': 'fchownat', '263': 'unlinkat',
  '264': 'renameat', '265': 'linkat', '266': 'symlinkat', '268': 'fchmodat', '272': 'unshare', '288': 'accept4', '304': 'open_by_handle_at',
  '308': 'setns', '310': 'process_vm_readv', '311': 'process_vm_writev', '313': 'finit_module', '316': 'renameat2', '319': 'memfd_create',
  '321': 'bpf', '322': 'execveat', '425': 'io_uring_setup', '435': 'clone3', '437': 'openat2', '452': 'fchmodat2',
});
const I386 = lookupTable<string>({
  '1': 'exit', '2': 'fork', '5': 'open', '8': 'creat', '9': 'link', '10': 'unlink', '11': 'execve', '14': 'mknod', '15': 'chmod',
  '21': 'mount', '23': 'setuid', '26': 'ptrace', '37': 'kill', '38': 'rename', '39': 'mkdir', '40': 'rmdir', '46': 'setgid',
  '52': 'umount2', '61': 'chroot', '83': 'symlink', '88': 'reboot', '92': 'truncate', '94': 'fchmod', '102': 'socketcall',
  '120': 'clone', '128': 'init_module', '129': 'delete_module', '182': 'chown', '190': 'vfork', '198': 'lchown32', '212': 'chown32',
  '213': 'setuid32', '214': 'setgid32', '295': 'openat', '301': 'unlinkat', '302': 'renameat', '306': 'fchmodat', '358': 'execveat',
  '362': 'connect', '361': 'bind', '364': 'accept4',
});
const GENERIC = lookupTable<string>({
  '5': 'setxattr', '14': 'removexattr', '29': 'ioctl', '33': 'mknodat', '34': 'mkdirat', '35': 'unlinkat', '36': 'symlinkat',
  '37': 'linkat', '38': 'renameat', '39': 'umount2', '40': 'mount', '41': 'pivot_root', '45': 'truncate', '46': 'ftruncate',
  '51': 'chroot', '52': 'fchmod', '53': 'fchmodat', '54': 'fchownat', '55': 'fchown', '56': 'openat', '57': 'close',
  '63': 'read', '64': 'write', '91': 'capset', '92': 'personality', '93': 'exit', '94': 'exit_group', '97': 'unshare',
  '105': 'init_module', '106': 'delete_module', '112': 'clock_settime', '117': 'ptrace', '129': 'kill', '130': 'tkill', '131': 'tgkill',
  '142': 'reboot', '144': 'setgid', '146': 'setuid', '147': 'setresuid', '149': 'setresgid', '161': 'sethostname', '167': 'prctl',
  '170': 'settimeofday', '171': 'adjtimex', '198': 'socket', '200': 'bind', '201': 'listen', '202': 'accept', '203': 'connect',
  '206': 'sendto', '207': 'recvfrom', '211': 'sendmsg', '212': 'recvmsg', '220': 'clone', '221': 'execve', '222': 'mmap',
  '224': 'swapon', '226': 'mprotect', '242': 'accept4', '265': 'open_by_handle_at', '268': 'setns', '273': 'finit_module',
  '276': 'renameat2', '279': 'memfd_create', '280': 'bpf', '281': 'execveat', '435': 'clone3', '437': 'openat2', '452': 'fchmodat2',
});
const SYSCALLS_BY_ARCH = lookupTable<Readonly<Record<string, string>>>({ c000003e: X86_64, '40000003': I386, c00000b7: GENERIC, c00000f3: GENERIC });

/** The syscall's name from auditd's arch= and syscall= numbers; undefined when not listed. */
export function syscallName(arch: string | undefined, number: string | undefined): string | undefined {
  if (arch === undefined || number === undefined) return undefined;
  return SYSCALLS_BY_ARCH[arch.toLowerCase()]?.[number];
}

// What a syscall does, in ECS. execve starts a process; the file syscalls
// read, create, change or delete a file; connect/accept/bind open network
// connections; the set*id family changes the process's identity; module and
// BPF loading put code into the kernel.
const PROCESS_START: EcsClass = { category: ['process'], type: ['start'] };
const PROCESS_CHANGE: EcsClass = { category: ['process'], type: ['change'] };
const PROCESS_ACCESS: EcsClass = { category: ['process'], type: ['access'] };
const PROCESS_END: EcsClass = { category: ['process'], type: ['end'] };
const FILE_ACCESS: EcsClass = { category: ['file'], type: ['access'] };
const FILE_CREATION: EcsClass = { category: ['file'], type: ['creation'] };
const FILE_CHANGE: EcsClass = { category: ['file'], type: ['change'] };
const FILE_DELETION: EcsClass = { category: ['file'], type: ['deletion'] };
const CONNECTION: EcsClass = { category: ['network'], type: ['connection', 'start'] };
const DRIVER_START: EcsClass = { category: ['driver'], type: ['start'] };
const DRIVER_END: EcsClass = { category: ['driver'], type: ['end'] };
const HOST_CHANGE: EcsClass = { category: ['host'], type: ['change'] };

const SYSCALLS = lookupTable<EcsClass>({
  execve: PROCESS_START, execveat: PROCESS_START,
  clone: PROCESS_START, clone3: PROCESS_START, fork: PROCESS_START, vfork: PROCESS_START,
  exit: PROCESS_END, exit_group: PROCESS_END, kill: PROCESS_END, tkill: PROCESS_END, tgkill: PROCESS_END,
  ptrace: PROCESS_ACCESS, process_vm_readv: PROCESS_ACCESS, process_vm_writev: PROCESS_ACCESS,
  setuid: PROCESS_CHANGE, setgid: PROCESS_CHANGE, setreuid: PROCESS_CHANGE, setregid: PROCESS_CHANGE, setresuid: PROCESS_CHANGE,
  setresgid: PROCESS_CHANGE, setfsuid: PROCESS_CHANGE, setfsgid: PROCESS_CHANGE, setgroups: PROCESS_CHANGE, setuid32: PROCESS_CHANGE,
  setgid32: PROCESS_CHANGE, capset: PROCESS_CHANGE, prctl: PROCESS_CHANGE, personality: PROCESS_CHANGE, setns: PROCESS_CHANGE,
  unshare: PROCESS_CHANGE, chroot: PROCESS_CHANGE, pivot_root: PROCESS_CHANGE, mprotect: PROCESS_CHANGE,
  open: FILE_ACCESS, openat: FILE_ACCESS, openat2: FILE_ACCESS, open_by_handle_at: FILE_ACCESS, access: FILE_ACCESS, read: FILE_ACCESS,
  creat: FILE_CREATION, mkdir: FILE_CREATION, mkdirat: FILE_CREATION, mknod: FILE_CREATION, mknodat: FILE_CREATION,
  link: FILE_CREATION, linkat: FILE_CREATION, symlink: FILE_CREATION, symlinkat: FILE_CREATION, memfd_create: FILE_CREATION,
  rename: FILE_CHANGE, renameat: FILE_CHANGE, renameat2: FILE_CHANGE, truncate: FILE_CHANGE, ftruncate: FILE_CHANGE, write: FILE_CHANGE,
  chmod: FILE_CHANGE, fchmod: FILE_CHANGE, fchmodat: FILE_CHANGE, fchmodat2: FILE_CHANGE, chown: FILE_CHANGE, fchown: FILE_CHANGE,
  lchown: FILE_CHANGE, fchownat: FILE_CHANGE, chown32: FILE_CHANGE, lchown32: FILE_CHANGE, setxattr: FILE_CHANGE, lsetxattr: FILE_CHANGE,
  fsetxattr: FILE_CHANGE, removexattr: FILE_CHANGE, lremovexattr: FILE_CHANGE, fremovexattr: FILE_CHANGE,
  unlink: FILE_DELETION, unlinkat: FILE_DELETION, rmdir: FILE_DELETION,
  connect: CONNECTION, accept: CONNECTION, accept4: CONNECTION, bind: { category: ['network'], type: ['start'] }, listen: { category: ['network'], type: ['start'] },
  init_module: DRIVER_START, finit_module: DRIVER_START, delete_module: DRIVER_END, bpf: { category: ['driver'], type: ['change'] },
  mount: HOST_CHANGE, umount2: HOST_CHANGE, swapon: HOST_CHANGE, reboot: HOST_CHANGE, sethostname: HOST_CHANGE, setdomainname: HOST_CHANGE,
  settimeofday: HOST_CHANGE, clock_settime: HOST_CHANGE, adjtimex: HOST_CHANGE,
});

export function syscallClass(name: string): EcsClass | undefined {
  return SYSCALLS[name];
}

/** Address families in SOCKADDR's saddr: its first two bytes, in the host's byte order. */
export const AF_UNIX = 1;
export const AF_INET = 2;
export const AF_INET6 = 10;
