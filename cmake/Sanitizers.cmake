# Optional ASan + UBSan build for every target (-DBI_SANITIZE=ON).
if(BI_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
