import fs from 'node:fs';

/**
 * The pids whose parent is `parent`, from each of its threads' list of children (one read a thread, where
 * scanning every process of the machine would read thousands of files); [] where /proc does not say.
 */
export function childPids(parent) {
  let tasks;
  try {
    tasks = fs.readdirSync(`/proc/${parent}/task`);
  } catch {
    return [];
  }
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
