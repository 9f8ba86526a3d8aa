import fs from 'node:fs';

/**
 * The pids whose parent is `parent`: from each of its threads' list of children (one read a thread, where
 * scanning every process of the machine reads thousands of files), or by that scan on a kernel without
 * those lists (CONFIG_PROC_CHILDREN); [] where there is no /proc.
 */
export function childPids(parent) {
  let tasks;
  try {
    tasks = fs.readdirSync(`/proc/${parent}/task`);
  } catch {
    return [];
  }
  if (!fs.existsSync(`/proc/${parent}/task/${parent}/children`)) return scannedChildPids(parent);
  const children = [];
  for (const task of tasks) {
    try {
      const listed = fs.readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim();
      if (listed !== '') children.push(...listed.split(' ').map(Number));
    } catch {
      // the thread ended meanwhile
    }
  }
  return children;
}

function scannedChildPids(parent) {
  const children = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent)
        children.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}
