#!/usr/bin/env bash
# Files `agentout test` refuses as JUnit XML, made in the current folder for the docs:
# an empty file, XML cut off in its first element, a billion-laughs entity bomb, and an
# HTML page.
set -euo pipefail
: > empty.xml
printf '<testsuites><testsuite>' > cut.xml
cat > bomb.xml <<'XML'
<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<testsuites>&lol2;</testsuites>
XML
printf '<!DOCTYPE html>\n<html><body>not a report</body></html>\n' > page.html
