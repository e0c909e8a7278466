/**
 * Opens a Linux TUN device (layer 3, no packet-info header) and returns its file descriptor: each read() of
 * it is one IP packet the kernel routed to the device, each write() one packet the device receives. The
 * device lives as long as the descriptor (not persistent), so a process that dies takes its devices along.
 *
 * Node has no ioctl(); TUNSETIFF is called through koffi (the FFI the gateway already uses), on libc.
 */
import { openSync, closeSync, constants } from 'node:fs';
import koffi from 'koffi';

/** _IOW('T', 202, int): attach the descriptor to a (new) device of the given name and flags. */
const TUNSETIFF = 0x400454ca;
const IFF_TUN = 0x0001;
const IFF_NO_PI = 0x1000;
/** sizeof(struct ifreq) on Linux: a 16-byte name, then a union whose first member here is the flags. */
const IFREQ_BYTES = 40;
const IFNAMSIZ = 16;

interface Libc {
  ioctl: (fd: number, request: number, argument: Buffer) => number;
  errnoLocation: () => unknown;
}
let libc: Libc | undefined;

function bind(): Libc {
  if (!libc) {
    const library = koffi.load('libc.so.6');
    libc = {
      ioctl: library.func('int ioctl(int fd, unsigned long request, _Inout_ uint8_t *argument)') as unknown as Libc['ioctl'],
      errnoLocation: library.func('int *__errno_location(void)') as unknown as Libc['errnoLocation'],
    };
  }
  return libc;
}

/** Opens (creating) TUN device `name`; throws with the errno on failure (EPERM without CAP_NET_ADMIN). */
export function openTun(name: string): number {
  if (Buffer.byteLength(name) >= IFNAMSIZ) throw new Error(`TUN name '${name}' is longer than ${IFNAMSIZ - 1} bytes`);
  const fd = openSync('/dev/net/tun', constants.O_RDWR);
  const request = Buffer.alloc(IFREQ_BYTES);
  request.write(name, 0, 'ascii');
  request.writeUInt16LE(IFF_TUN | IFF_NO_PI, IFNAMSIZ);
  const { ioctl, errnoLocation } = bind();
  if (ioctl(fd, TUNSETIFF, request) < 0) {
    const errno = koffi.decode(errnoLocation(), 'int') as number;
    closeSync(fd);
    throw new Error(`TUNSETIFF ${name} failed (errno ${errno}${errno === 1 ? ', EPERM: needs root / CAP_NET_ADMIN' : ''})`);
  }
  return fd;
}
