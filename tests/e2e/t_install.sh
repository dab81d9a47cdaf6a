# make install: binary, library, headers, pkg-config file and man pages; a
# program builds against the installed library and runs.
top=$(cd "$E2E_DIR/../.." && pwd)
case "$PLUMB" in
*build-san*) skip "install" "checked in the normal build only"; return 0 2>/dev/null || exit 0 ;;
esac
run make -s -C "$top" install PREFIX="$PWD/inst"
same "make install exits 0" "$rc" 0
for f in bin/plumb lib/libplumb.a lib/libplumb.so.0 lib/libplumb.so lib/pkgconfig/libplumb.pc \
	include/plumb/profile.h include/plumb/analysis.h share/man/man1/plumb.1 \
	share/man/man1/plumb-report.1 share/man/man5/plumb-format.5; do
	[ -e "inst/$f" ] && ok "installed $f" || fail "installed $f" "missing"
done
cat > use.c <<'C'
#include <plumb/analysis.h>
#include <stdio.h>
int main(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	if (plumb_event_add(p, "samples", NULL, NULL, &err) < 0)
		return 1;
	printf("%zu\n", plumb_profile_nevents(p));
	plumb_profile_free(p);
	return 0;
}
C
export PKG_CONFIG_PATH="$PWD/inst/lib/pkgconfig"
run cc use.c -o use $(pkg-config --cflags --libs libplumb)
same "a program compiles against the installed libplumb" "$rc:$err" "0:"
run env LD_LIBRARY_PATH="$PWD/inst/lib" ./use
same "and runs" "$out" "1"
run "$PWD/inst/bin/plumb" report --format csv "$DATA/fig21.folded"
same "installed plumb runs" "$rc" 0
