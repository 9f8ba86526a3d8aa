import { execFileSync } from 'node:child_process';

/**
 * A small network of its own for a test, as root: a hub namespace holding a bridge, and one namespace per
 * node joined to it by a veth pair, node `i` at `10.231.0.(i + 1)`. Nothing of the host's network is
 * touched: every name is made here and removed by `destroy`. A partition is a set of blackhole routes
 * in the nodes' own routing tables, so what it cuts is exactly the pairs of nodes on opposite sides.
 */
export class NetnsLab {
  readonly addresses: string[];
  private readonly namespaces: string[];
  private readonly hub: string;
  private cut = new Set<string>();

  private constructor(
    private readonly prefix: string,
    size: number,
  ) {
    this.hub = `${prefix}h`;
    this.namespaces = Array.from({ length: size }, (_, index) => `${prefix}n${index}`);
    this.addresses = this.namespaces.map((_, index) => `10.231.0.${index + 1}`);
  }

  /** `size` nodes on one bridge; the names carry this process's pid, so two labs never share one. */
  static create(size: number): NetnsLab {
    const lab = new NetnsLab(`sl${process.pid % 100_000}`, size);
    try {
      lab.build();
    } catch (error) {
      lab.destroy();
      throw error;
    }
    return lab;
  }

  /** The argv prefix that runs a program inside node `index`'s namespace (`ip netns exec` execs it: same pid). */
  execIn(index: number): string[] {
    return ['ip', 'netns', 'exec', this.namespaces[index]!];
  }

  /**
   * Cuts every pair of nodes on different `sides`; a node on no side sees both (a bridge). Replaces any
   * partition in force.
   */
  partition(sides: number[][]): void {
    const wanted = new Set<string>();
    for (const [sideIndex, side] of sides.entries())
      for (const other of sides.slice(sideIndex + 1))
        for (const a of side)
          for (const b of other) {
            wanted.add(`${a}>${b}`);
            wanted.add(`${b}>${a}`);
          }
    for (const pair of this.cut) if (!wanted.has(pair)) this.route('del', pair);
    for (const pair of wanted) if (!this.cut.has(pair)) this.route('add', pair);
    this.cut = wanted;
  }

  heal(): void {
    this.partition([]);
  }

  /** Removes every namespace (their veths go with them); safe to call twice or after a failed create. */
  destroy(): void {
    for (const name of [...this.namespaces, this.hub]) {
      try {
        ip('netns', 'del', name);
      } catch {
        // Not made, or already gone.
      }
    }
  }

  private build(): void {
    ip('netns', 'add', this.hub);
    this.inNs(this.hub, 'link', 'add', 'br0', 'type', 'bridge');
    this.inNs(this.hub, 'link', 'set', 'br0', 'up');
    for (const [index, ns] of this.namespaces.entries()) {
      const [inside, outside] = [`${this.prefix}v${index}`, `${this.prefix}b${index}`];
      ip('netns', 'add', ns);
      ip('link', 'add', inside, 'type', 'veth', 'peer', 'name', outside);
      ip('link', 'set', inside, 'netns', ns);
      ip('link', 'set', outside, 'netns', this.hub);
      this.inNs(this.hub, 'link', 'set', outside, 'master', 'br0');
      this.inNs(this.hub, 'link', 'set', outside, 'up');
      this.inNs(ns, 'addr', 'add', `${this.addresses[index]}/24`, 'dev', inside);
      this.inNs(ns, 'link', 'set', inside, 'up');
      this.inNs(ns, 'link', 'set', 'lo', 'up');
    }
  }

  private route(action: 'add' | 'del', pair: string): void {
    const [from, to] = pair.split('>').map(Number) as [number, number];
    this.inNs(this.namespaces[from]!, 'route', action, 'blackhole', `${this.addresses[to]}/32`);
  }

  private inNs(ns: string, ...args: string[]): void {
    ip('-n', ns, ...args);
  }
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}
