// bi-run-cert(5), the cert's man page: written by hand (packaging/bi-run-cert.5) and built into
// bi-run, so `bi-run help --man DIR` writes it with the pages that cite it.
#pragma once

namespace bi::cli {

// The page's roff text, as packaging/bi-run-cert.5 held it when bi-run was configured.
const char* cert_man_page();

}  // namespace bi::cli
