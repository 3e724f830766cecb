#!/usr/bin/env bash
# Two note folders `agentout notes` cannot read whole, made in the current folder:
#   my-vault/   symlinks inside and outside it (alias.md -> real/shared.md,
#               key.md -> ../elsewhere/id_rsa, real-link -> real, more -> ../elsewhere),
#               a file named in Latin-1 and front matter nested 200 deep
#   bad-vault/  two good notes linking to each other and to a note not written yet, broken
#               YAML, a GIF named image.md, a 50 MB note, a second file taking the id good
set -euo pipefail
mkdir -p my-vault/real elsewhere bad-vault
echo "not a note" > elsewhere/id_rsa
printf 'Shared notes.\n' > my-vault/real/shared.md
ln -s real/shared.md my-vault/alias.md
ln -s ../elsewhere/id_rsa my-vault/key.md
ln -s real my-vault/real-link
ln -s ../elsewhere my-vault/more
printf 'A note from an old archive.\n' > "my-vault/caf$(printf '\351').md"
python3 -c "print('---\ntitle: deep\ntags: ' + '[' * 200 + ']' * 200 + '\n---\nDeep.')" \
  > my-vault/deep.md

printf -- '---\nid: good\n---\nSee [[other]] and [[not-written-yet]].\n' > bad-vault/good.md
printf -- '---\nid: other\n---\nBack to [[good]].\n' > bad-vault/other.md
printf -- '---\ntags: [a, b\ntitle: broken\n---\nBroken.\n' > bad-vault/broken.md
printf 'GIF89a\x00\x01\x00\x01\x00\x00;' > bad-vault/image.md
head -c 52428800 /dev/zero | tr '\0' a > bad-vault/huge.md
printf -- '---\nid: good\n---\nA copy.\n' > bad-vault/z-copy.md
