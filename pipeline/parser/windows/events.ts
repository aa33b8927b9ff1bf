// What each Windows event id means in ECS, as data: the categorisation and
// action Elastic's `system` (Security channel) and `windows` (Sysmon,
// PowerShell, AppLocker) packages give it, and whose account the event is
// about. Ids and meanings from Microsoft's event documentation ("Advanced
// security audit policy settings", the Sysmon schema, PowerShell's and
// AppLocker's event references).
import { lookupTable } from '../../../lib/lookup-table.js';

/**
 * Whose account user.* names (Elastic's rules, by event):
 *   target   the account the event is about (TargetUserName): logons, logoffs, Kerberos and NTLM
 *   subject  the account that acted (SubjectUserName)
 *   changed  subject acting on a target account: user.target is TargetUserName
 *   run-as   subject, the account it ran as or used explicitly in user.effective (4648, 4688)
 *   group    subject changing a group: group.* is the group, user.target the member (MemberName)
 *   computer subject changing a computer account (TargetUserName is the computer's)
 *   cleared  the subject of 1102, written under UserData
 *   session  AccountName of a session reconnected or disconnected (4778, 4779)
 */
export type UserRule = 'target' | 'subject' | 'changed' | 'run-as' | 'group' | 'computer' | 'cleared' | 'session';

export interface EventSpec {
  category: readonly string[];
  type: readonly string[];
  action: string;
  user?: UserRule;
}

/** Rows "id | categories | types | action | user", categories and types comma-separated ("-": none). */
function table(rows: string): Readonly<Record<string, EventSpec>> {
  const entries: Record<string, EventSpec> = {};
  for (const line of rows.split('\n')) {
    const parts = line.split('|').map((part) => part.trim());
    if (parts.length < 4) continue;
    const [id, category, type, action, user] = parts as [string, string, string, string, string | undefined];
    entries[id] = { category: category === '-' ? [] : category.split(','), type: type.split(','), action, ...(user ? { user: user as UserRule } : {}) };
  }
  return lookupTable(entries);
}

/** Security channel (provider Microsoft-Windows-Security-Auditing), and the Service Control Manager's 7045 in System. */
export const SECURITY = table(`
  1100 | process                | end            | logging-service-shutdown
  1102 | iam                    | admin,change   | audit-log-cleared                        | cleared
  1104 | iam                    | admin          | logging-full
  1105 | iam                    | admin          | auditlog-archieved
  1108 | iam                    | admin          | logging-processing-error
  4610 | configuration          | access         | authentication-package-loaded
  4611 | configuration          | change         | trusted-logon-process-registered
  4614 | configuration          | access         | notification-package-loaded
  4616 | configuration          | change         | system-time-changed                      | subject
  4622 | configuration          | access         | security-package-loaded
  4624 | authentication         | start          | logged-in                                | target
  4625 | authentication         | start          | logon-failed                             | target
  4634 | authentication         | end            | logged-out                               | target
  4647 | authentication         | end            | logged-out                               | target
  4648 | authentication         | start          | logged-in-explicit                       | run-as
  4657 | registry,configuration | change         | registry-value-modified                  | subject
  4663 | file                   | access         | object-accessed                          | subject
  4670 | iam,configuration      | admin,change   | permissions-changed                      | changed
  4672 | iam                    | admin          | logged-in-special                        | subject
  4673 | iam                    | admin          | privileged-service-called                | subject
  4674 | iam                    | admin          | privileged-operation                     | subject
  4688 | process                | start          | created-process                          | run-as
  4689 | process                | end            | exited-process                           | subject
  4697 | iam,configuration      | admin,change   | service-installed                        | subject
  4698 | iam,configuration      | creation,admin | scheduled-task-created                   | subject
  4699 | iam,configuration      | deletion,admin | scheduled-task-deleted                   | subject
  4700 | iam,configuration      | change,admin   | scheduled-task-enabled                   | subject
  4701 | iam,configuration      | change,admin   | scheduled-task-disabled                  | subject
  4702 | iam,configuration      | change,admin   | scheduled-task-updated                   | subject
  4706 | configuration          | creation       | domain-trust-added                       | subject
  4707 | configuration          | deletion       | domain-trust-removed                     | subject
  4713 | configuration          | change         | kerberos-policy-changed                  | subject
  4714 | configuration          | change         | encrypted-data-recovery-policy-changed
  4715 | configuration          | change         | object-audit-policy-changed
  4716 | configuration          | change         | trusted-domain-information-changed       | subject
  4717 | iam,configuration      | admin,change   | system-security-access-granted           | subject
  4718 | iam,configuration      | admin,deletion | system-security-access-removed           | subject
  4719 | iam,configuration      | admin,change   | changed-audit-config                     | subject
  4720 | iam                    | user,creation  | added-user-account                       | changed
  4722 | iam                    | user,change    | enabled-user-account                     | changed
  4723 | iam                    | user,change    | changed-password                         | changed
  4724 | iam                    | user,change    | reset-password                           | changed
  4725 | iam                    | user,deletion  | disabled-user-account                    | changed
  4726 | iam                    | user,deletion  | deleted-user-account                     | changed
  4727 | iam                    | group,creation | added-group-account                      | group
  4728 | iam                    | group,change   | added-member-to-group                    | group
  4729 | iam                    | group,change   | removed-member-from-group                | group
  4730 | iam                    | group,deletion | deleted-group-account                    | group
  4731 | iam                    | group,creation | added-group-account                      | group
  4732 | iam                    | group,change   | added-member-to-group                    | group
  4733 | iam                    | group,change   | removed-member-from-group                | group
  4734 | iam                    | group,deletion | deleted-group-account                    | group
  4735 | iam                    | group,change   | modified-group-account                   | group
  4737 | iam                    | group,change   | modified-group-account                   | group
  4738 | iam                    | user,change    | modified-user-account                    | changed
  4739 | configuration          | change         | domain-policy-changed                    | subject
  4740 | iam                    | user,change    | locked-out-user-account                  | changed
  4741 | iam                    | creation,admin | added-computer-account                   | computer
  4742 | iam                    | change,admin   | changed-computer-account                 | computer
  4743 | iam                    | deletion,admin | deleted-computer-account                 | computer
  4744 | iam                    | group,creation | added-distribution-group-account         | group
  4745 | iam                    | group,change   | changed-distribution-group-account       | group
  4746 | iam                    | group,change   | added-member-to-distribution-group       | group
  4747 | iam                    | group,change   | removed-member-from-distribution-group   | group
  4748 | iam                    | group,deletion | deleted-distribution-group-account       | group
  4749 | iam                    | group,creation | added-distribution-group-account         | group
  4750 | iam                    | group,change   | changed-distribution-group-account       | group
  4751 | iam                    | group,change   | added-member-to-distribution-group       | group
  4752 | iam                    | group,change   | removed-member-from-distribution-group   | group
  4753 | iam                    | group,deletion | deleted-distribution-group-account       | group
  4754 | iam                    | group,creation | added-group-account                      | group
  4755 | iam                    | group,change   | modified-group-account                   | group
  4756 | iam                    | group,change   | added-member-to-group                    | group
  4757 | iam                    | group,change   | removed-member-from-group                | group
  4758 | iam                    | group,deletion | deleted-group-account                    | group
  4759 | iam                    | group,creation | added-distribution-group-account         | group
  4760 | iam                    | group,change   | changed-distribution-group-account       | group
  4761 | iam                    | group,change   | added-member-to-distribution-group       | group
  4762 | iam                    | group,change   | removed-member-from-distribution-group   | group
  4763 | iam                    | group,deletion | deleted-distribution-group-account       | group
  4764 | iam                    | group,change   | type-changed-group-account               | group
  4767 | iam                    | user,change    | unlocked-user-account                    | changed
  4768 | authentication         | start          | kerberos-authentication-ticket-requested | target
  4769 | authentication         | start          | kerberos-service-ticket-requested        | target
  4770 | authentication         | start          | kerberos-service-ticket-renewed          | target
  4771 | authentication         | start          | kerberos-preauth-failed                  | target
  4776 | authentication         | start          | credential-validated                     | target
  4778 | authentication,session | start          | session-reconnected                      | session
  4779 | authentication,session | end            | session-disconnected                     | session
  4781 | iam                    | user,change    | renamed-user-account                     | subject
  4798 | iam                    | user,info      | group-membership-enumerated              | changed
  4799 | iam                    | group,info     | user-member-enumerated                   | group
  4817 | iam,configuration      | admin,change   | object-audit-changed                     | changed
  4902 | iam,configuration      | admin,creation | user-audit-policy-created
  4904 | iam,configuration      | admin,change   | security-event-source-added              | subject
  4905 | iam,configuration      | admin,deletion | security-event-source-removed            | subject
  4906 | iam,configuration      | admin,change   | crash-on-audit-changed
  4907 | iam,configuration      | admin,change   | audit-setting-changed                    | changed
  4908 | iam,configuration      | admin,change   | special-group-table-changed
  4912 | iam,configuration      | admin,change   | per-user-audit-policy-changed            | subject
  4964 | iam                    | admin,group    | logged-in-special                        | target
  7045 | iam,configuration      | admin,change   | service-installed
`);

/** Sysmon's event ids (Microsoft-Windows-Sysmon/Operational) with the names its schema gives them. */
export const SYSMON = table(`
  1   | process                | start                     | Process creation
  2   | file                   | change                    | A process changed a file creation time
  3   | network                | start,connection,protocol | Network connection
  4   | process                | change                    | Sysmon service state changed
  5   | process                | end                       | Process terminated
  6   | driver                 | start                     | Driver loaded
  7   | process,library        | change,start              | Image loaded
  8   | process                | change                    | CreateRemoteThread
  9   | process                | access                    | RawAccessRead
  10  | process                | access                    | ProcessAccess
  11  | file                   | creation                  | FileCreate
  12  | configuration,registry | change                    | RegistryEvent (Object create and delete)
  13  | configuration,registry | change                    | RegistryEvent (Value Set)
  14  | configuration,registry | change                    | RegistryEvent (Key and Value Rename)
  15  | file                   | access                    | FileCreateStreamHash
  16  | configuration          | change                    | ServiceConfigurationChange
  17  | file                   | creation                  | PipeEvent (Pipe Created)
  18  | file                   | access                    | PipeEvent (Pipe Connected)
  19  | process                | info                      | WmiEvent (WmiEventFilter activity detected)
  20  | process                | change                    | WmiEvent (WmiEventConsumer activity detected)
  21  | process                | access                    | WmiEvent (WmiEventConsumerToFilter activity detected)
  22  | network                | connection,protocol,info  | DNSEvent (DNS query)
  23  | file                   | deletion                  | FileDelete (File Delete archived)
  24  | -                      | change                    | ClipboardChange (New content in the clipboard)
  25  | process                | change                    | ProcessTampering (Process image change)
  26  | file                   | deletion                  | FileDeleteDetected (File Delete logged)
  27  | file                   | creation                  | FileBlockExecutable
  28  | file                   | deletion                  | FileBlockShredding
  29  | file                   | creation                  | FileExecutableDetected
  255 | process                | info                      | Error
`);

/** Windows PowerShell (the classic log) and Microsoft-Windows-PowerShell/Operational, actions their task names. */
export const POWERSHELL = table(`
  400  | process | start | Engine Lifecycle
  403  | process | end   | Engine Lifecycle
  600  | process | info  | Provider Lifecycle
  800  | process | info  | Pipeline Execution Details
  4103 | process | info  | Executing Pipeline
  4104 | process | info  | Execute a Remote Command
  4105 | process | start | Starting Command
  4106 | process | end   | Stopping Command
`);

/**
 * AppLocker's EXE and DLL (8002-8004), MSI and Script (8005-8007) events: a file allowed to run, allowed
 * only because the policy audits (would have been prevented), or prevented.
 */
export const APPLOCKER = table(`
  8002 | process | start,allowed | allowed-to-run
  8003 | process | start,allowed | audited-would-have-been-prevented
  8004 | process | start,denied  | prevented-from-running
  8005 | process | start,allowed | allowed-to-run
  8006 | process | start,allowed | audited-would-have-been-prevented
  8007 | process | start,denied  | prevented-from-running
`);

/** Logon types (winlog.logon.type), from "Audit Logon" (event 4624). */
export const LOGON_TYPES = lookupTable<string>({
  '0': 'System',
  '2': 'Interactive',
  '3': 'Network',
  '4': 'Batch',
  '5': 'Service',
  '7': 'Unlock',
  '8': 'NetworkCleartext',
  '9': 'NewCredentials',
  '10': 'RemoteInteractive',
  '11': 'CachedInteractive',
  '12': 'CachedRemoteInteractive',
  '13': 'CachedUnlock',
});

/** NTSTATUS codes of failed logons (events 4625, 4776), as Microsoft's documentation of event 4625 explains them. */
export const LOGON_STATUS = lookupTable<string>({
  '0xc000005e': 'There are currently no logon servers available to service the logon request.',
  '0xc0000064': 'User logon with misspelled or bad user account',
  '0xc000006a': 'User logon with misspelled or bad password',
  '0xc000006d': 'This is either due to a bad username or authentication information',
  '0xc000006e': 'Unknown user name or bad password.',
  '0xc000006f': 'User logon outside authorized hours',
  '0xc0000070': 'User logon from unauthorized workstation',
  '0xc0000071': 'User logon with expired password',
  '0xc0000072': 'User logon to account disabled by administrator',
  '0xc00000dc': 'Indicates the Sam Server was in the wrong state to perform the desired operation.',
  '0xc0000133': 'Clocks between DC and other computer too far out of sync',
  '0xc000015b': 'The user has not been granted the requested logon type (aka logon right) at this machine',
  '0xc000018c': 'The logon request failed because the trust relationship between the primary domain and the trusted domain failed.',
  '0xc0000192': 'An attempt was made to logon, but the Netlogon service was not started.',
  '0xc0000193': 'User logon with expired account',
  '0xc0000224': 'User is required to change password at next logon',
  '0xc0000225': 'Evidently a bug in Windows and not a risk',
  '0xc0000234': 'User logon with account locked',
  '0xc00002ee': 'Failure Reason: An Error occurred during Logon',
  '0xc0000413': 'Logon Failure: The machine you are logging onto is protected by an authentication firewall. The specified account is not allowed to authenticate to the machine.',
  '0x0': 'Status OK.',
});

/** FailureReason message ids (%%2304...) of event 4625, in words. */
export const FAILURE_REASONS = lookupTable<string>({
  '%%2304': 'An Error occurred during Logon.',
  '%%2305': 'The specified user account has expired.',
  '%%2306': 'The NetLogon component is not active.',
  '%%2307': 'Account locked out.',
  '%%2308': 'The user has not been granted the requested logon type at this machine.',
  '%%2309': "The specified account's password has expired.",
  '%%2310': 'Account currently disabled.',
  '%%2311': 'Account logon time restriction violation.',
  '%%2312': 'User not allowed to logon at this computer.',
  '%%2313': 'Unknown user name or bad password.',
  '%%2314': 'Domain sid inconsistent.',
  '%%2315': 'Smartcard logon is required and was not used.',
});

/** Kerberos result codes (events 4768, 4769, 4771: Status, or Failure Code). */
export const KERBEROS_STATUS = lookupTable<string>({
  '0x0': 'KDC_ERR_NONE',
  '0x6': 'KDC_ERR_C_PRINCIPAL_UNKNOWN',
  '0x7': 'KDC_ERR_S_PRINCIPAL_UNKNOWN',
  '0xc': 'KDC_ERR_POLICY',
  '0xe': 'KDC_ERR_ETYPE_NOTSUPP',
  '0x12': 'KDC_ERR_CLIENT_REVOKED',
  '0x17': 'KDC_ERR_KEY_EXPIRED',
  '0x18': 'KDC_ERR_PREAUTH_FAILED',
  '0x19': 'KDC_ERR_PREAUTH_REQUIRED',
  '0x1f': 'KRB_AP_ERR_BAD_INTEGRITY',
  '0x20': 'KRB_AP_ERR_TKT_EXPIRED',
  '0x25': 'KRB_AP_ERR_SKEW',
  '0x44': 'KDC_ERR_WRONG_REALM',
});
